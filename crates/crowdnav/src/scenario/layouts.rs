//! The layouts of pedestrian experiments, generated as [`Scenario`]s: a room emptying
//! through a door, counterflow in a corridor, and two streams crossing.
//!
//! They are the set-ups that crowd models are measured on (Seyfried et al. 2009,
//! Liddle et al. 2011 and Kretz et al. 2006 for doors; Zhang et al. 2012 for
//! counterflow and crossing), with agents of human size ([`PERSON_RADIUS`],
//! [`PERSON_SPEED`]). Each takes a seed that scatters the agents differently, so that a
//! model is checked on many layouts of the same kind, never fitted to one.
//!
//! Every layout has a `measure` line (see [`Layout::line`]) where flows are counted.

use super::file::{Scenario, ScenarioError};
use glam::Vec2;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

/// The radius of a person's disc, metres: half a typical shoulder width (0.5 m).
pub const PERSON_RADIUS: f32 = 0.25;

/// The free walking speed of people on the flat, metres per second (Weidmann 1993).
pub const PERSON_SPEED: f32 = 1.34;

/// The step length of the generated scenarios, seconds.
const DT: f32 = 0.05;

/// A generated experiment: the scenario and the line across which its flow is counted.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The scenario (ORCA by default, with no `"orca"` key: the library's defaults).
    pub scenario: Scenario,
    /// The measurement line, as in the scenario's `lines`: the door's exit, the
    /// corridor's middle, or across the east arm just past the crossing.
    pub line: (Vec2, Vec2),
}

/// Which place each person of a generated layout walks to.
///
/// The experiments give people no places: they leave a room, or walk on to the
/// corridor's end. A simulation gives each agent its own goal, and how those goals are
/// dealt out decides how many ways cross on the way there. A model is measured on all
/// of them, not on the kindest alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Places {
    /// In the order people stand: at a door, places by height in order of the starts'
    /// heights, so that few ways cross behind the door; in a corridor, every person
    /// walks the same distance straight on, the group arriving as it stood.
    #[default]
    InOrder,
    /// Dealt out at random (seeded by the layout's seed): half the people at a door
    /// turn to the other side once through, and the groups in corridors mix on arrival.
    Shuffled,
    /// In reverse: at a door, the highest starts take the lowest places, so that nearly
    /// every way crosses another at the door; in a corridor, the order along the way is
    /// reversed, so that the first to arrive stop nearest and the last walk through
    /// them to the far end of the group's places.
    Mirrored,
    /// Starts taken in order along the way (at a door, column by column of the room)
    /// and places in order across it (row by row of the hall), as two nested loops over
    /// two grids would deal them: the people nearest the door all go to the highest
    /// places, those behind them to the next row, so that everyone at the door at once
    /// turns to the same side.
    Transposed,
    /// Everyone to one point, the middle of the places (a rally point): the people
    /// gather around it ([`Agent::spot`](crate::world::Agent::spot)) rather than
    /// each at a place of its own.
    Together,
}

impl std::str::FromStr for Places {
    type Err = ScenarioError;

    fn from_str(text: &str) -> Result<Places, ScenarioError> {
        match text {
            "in-order" => Ok(Places::InOrder),
            "shuffled" => Ok(Places::Shuffled),
            "mirrored" => Ok(Places::Mirrored),
            "transposed" => Ok(Places::Transposed),
            "together" => Ok(Places::Together),
            other => Err(ScenarioError::Invalid(format!(
                "places {other:?}: in-order, shuffled, mirrored, transposed or together"
            ))),
        }
    }
}

/// A seeded generator for dealing out places, apart from the one that scatters the
/// starts (so that the starts of a seed are the same whatever the places).
fn dealer(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_91ac_e5d0_0a11)
}

/// A room of `size × size` metres emptying through a door `door_width` metres wide in
/// a wall 1 m thick into a hall of the same size behind it; `agents` people scattered
/// over the room (seeded by `seed`), each walking to its own place in the hall.
///
/// The room spans `x` in `[0, size]`, the wall `[size, size + 1]`, the hall
/// `[size + 1, 2 size + 1]`; the door is centred at `y = size / 2`. The line is the
/// door's exit, at `x = size + 1`.
///
/// # Errors
/// [`ScenarioError::Invalid`] when the door is not between 2 radii and the room's
/// side, or the agents do not fit in the room.
pub fn door(size: f32, door_width: f32, agents: usize, seed: u64) -> Result<Layout, ScenarioError> {
    door_with(size, door_width, agents, seed, Places::InOrder)
}

/// [`door`] with the hall's places dealt out as `places` says.
///
/// # Errors
/// As [`door`].
pub fn door_with(
    size: f32,
    door_width: f32,
    agents: usize,
    seed: u64,
    places: Places,
) -> Result<Layout, ScenarioError> {
    door_shaped(size, door_width, agents, seed, places, DoorShape::default())
}

/// The wall and the door's place in it, for [`door_shaped`]: [`door`]'s are a wall
/// 1 m thick with the door in its middle.
///
/// Bottleneck experiments differ in both: a door in a thin wall (Kretz et al. 2006), a
/// passage a few metres long (Seyfried et al. 2009; Liddle et al. 2011 varied its
/// length), a door near the room's corner. A model's flow is measured on them too (see
/// docs/crowd-behaviour.md, "Door shapes").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DoorShape {
    /// The wall's thickness, metres: the length of the passage through the door.
    /// \[Limit: > 0\]
    pub wall: f32,
    /// How far the door's middle lies from the wall's middle, metres (positive: up).
    /// \[Limit: the door within the wall\]
    pub offset: f32,
}

impl Default for DoorShape {
    fn default() -> DoorShape {
        DoorShape {
            wall: 1.0,
            offset: 0.0,
        }
    }
}

/// [`door_with`] through a door of another `shape`: a wall `shape.wall` thick, the door
/// centred at `y = size / 2 + shape.offset`. The hall spans `x` in
/// `[size + wall, 2 size + wall]`, and the line is the door's exit, at
/// `x = size + wall`.
///
/// # Errors
/// As [`door`], and when the wall's thickness is not positive (at most the room's
/// side) or the door does not lie within the wall.
pub fn door_shaped(
    size: f32,
    door_width: f32,
    agents: usize,
    seed: u64,
    places: Places,
    shape: DoorShape,
) -> Result<Layout, ScenarioError> {
    let r = PERSON_RADIUS;
    if !(size.is_finite() && (4.0..=1000.0).contains(&size)) {
        return Err(ScenarioError::Invalid(format!(
            "door layout: room size {size} m must be within 4 and 1000"
        )));
    }
    if !(door_width.is_finite() && door_width > 2.0 * r && door_width < size - 1.0) {
        return Err(ScenarioError::Invalid(format!(
            "door layout: door width {door_width} m must be wider than a person (0.5 m) and narrower than the room"
        )));
    }
    let DoorShape {
        wall: thickness,
        offset,
    } = shape;
    if !(thickness.is_finite() && thickness > 0.0 && thickness <= size) {
        return Err(ScenarioError::Invalid(format!(
            "door layout: wall thickness {thickness} m must be positive and at most the room's side"
        )));
    }
    // A door flush with the room's corner is one whose side comes within a millimetre
    // of it (the offset's rounding aside).
    let flush = |y: f32, corner: f32| if (y - corner).abs() < 1e-3 { corner } else { y };
    let (low, high) = (
        flush(size / 2.0 + offset - door_width / 2.0, 0.0),
        flush(size / 2.0 + offset + door_width / 2.0, size),
    );
    if !(low >= 0.0 && high <= size) {
        return Err(ScenarioError::Invalid(format!(
            "door layout: a door {door_width} m wide {offset} m off the middle does not lie within the wall"
        )));
    }
    let (wall, exit) = (size, size + thickness);
    let hall_end = 2.0 * size + thickness;
    let margin = r + 0.25;
    let starts = scatter(
        (Vec2::splat(margin), Vec2::new(wall - margin, size - margin)),
        agents,
        seed,
    )?;
    // Places in the hall on a grid 1.5 m apart, as many rows as the hall's height holds,
    // filled column by column from the wall; agents take them in order of their height
    // so that few paths cross behind the door.
    let spacing = 1.5;
    let rows = ((size - 2.0 * margin) / spacing).floor().max(1.0) as usize;
    let columns = agents.div_ceil(rows);
    let first_column = exit + 4.0;
    if first_column + spacing * columns as f32 > hall_end - margin {
        return Err(ScenarioError::Invalid(format!(
            "door layout: {agents} places do not fit in a hall of {size} m"
        )));
    }
    let mut goals: Vec<Vec2> = (0..agents)
        .map(|k| {
            let (column, row) = (k / rows, k % rows);
            let y0 = size / 2.0 - spacing * (rows as f32 - 1.0) / 2.0;
            Vec2::new(
                first_column + spacing * column as f32,
                y0 + spacing * row as f32,
            )
        })
        .collect();
    goals.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
    let mut order: Vec<usize> = (0..agents).collect();
    order.sort_by(|&a, &b| starts[a].y.total_cmp(&starts[b].y));
    match places {
        Places::InOrder => {}
        Places::Mirrored => order.reverse(),
        Places::Shuffled => order.shuffle(&mut dealer(seed)),
        Places::Transposed => {
            let along = along_then(Vec2::X, Vec2::Y);
            order.sort_by(|&a, &b| along(&starts[a], &starts[b]));
        }
        Places::Together => gather_at_middle(&mut goals),
    }
    let mut goal_of = vec![Vec2::ZERO; agents];
    for (k, &i) in order.iter().enumerate() {
        goal_of[i] = goals[k];
    }
    let line = (Vec2::new(exit, low), Vec2::new(exit, high));
    // The wall's two pieces, below and above the door (none where the door meets the
    // room's corner).
    let obstacles: Vec<serde_json::Value> = [(0.0, low), (high, size)]
        .into_iter()
        .filter(|(from, to)| to > from)
        .map(|(from, to)| json!([[wall, from], [exit, from], [exit, to], [wall, to]]))
        .collect();
    let scenario = build(
        &format!("door-{door_width}"),
        &format!(
            "{agents} people leave a {size} x {size} m room through a door {door_width} m wide, each to its own place in the hall behind."
        ),
        json!({
            "boundary": [[0.0, 0.0], [hall_end, 0.0], [hall_end, size], [0.0, size]],
            "obstacles": obstacles,
        }),
        (&starts, &goal_of),
        ("door", line),
        600.0,
    )?;
    Ok(Layout { scenario, line })
}

/// A corridor `length × width` metres with `per_side` people starting at each end
/// (scattered over its first `length / 5` metres, seeded by `seed`), each walking
/// `0.775 length` metres straight on to its own place near the other end. The line
/// crosses the corridor at its middle.
///
/// # Errors
/// [`ScenarioError::Invalid`] when the corridor is too small for the people.
pub fn counterflow(
    length: f32,
    width: f32,
    per_side: usize,
    seed: u64,
) -> Result<Layout, ScenarioError> {
    counterflow_with(length, width, per_side, seed, Places::InOrder)
}

/// [`counterflow`] with each side's places dealt out as `places` says.
///
/// # Errors
/// As [`counterflow`].
pub fn counterflow_with(
    length: f32,
    width: f32,
    per_side: usize,
    seed: u64,
    places: Places,
) -> Result<Layout, ScenarioError> {
    check_corridor(length, width)?;
    let margin = PERSON_RADIUS + 0.1;
    let block = length / 5.0;
    let travel = 0.775 * length;
    let (starts, goals) = two_streams(
        (
            Vec2::splat(margin),
            Vec2::new(block - margin, width - margin),
        ),
        (
            Vec2::new(length - block + margin, margin),
            Vec2::new(length - margin, width - margin),
        ),
        (Vec2::new(travel, 0.0), Vec2::new(-travel, 0.0)),
        per_side,
        (seed, places),
    )?;
    let line = (Vec2::new(length / 2.0, 0.0), Vec2::new(length / 2.0, width));
    let scenario = build(
        "counterflow",
        &format!(
            "{per_side} people walk each way through a corridor {length} x {width} m, each {travel} m on."
        ),
        json!({"boundary": [[0.0, 0.0], [length, 0.0], [length, width], [0.0, width]]}),
        (&starts, &goals),
        ("middle", line),
        600.0,
    )?;
    Ok(Layout { scenario, line })
}

/// Two corridors `length × width` metres crossing at right angles in their middles
/// (a plus sign), with `per_stream` people walking west to east and as many south to
/// north, each from the first fifth of its arm (scattered, seeded by `seed`) to its
/// own place in the last fifth of the opposite arm. The line crosses the east arm
/// just past the crossing.
///
/// # Errors
/// [`ScenarioError::Invalid`] when the corridors are too small for the people.
pub fn crossing(
    length: f32,
    width: f32,
    per_stream: usize,
    seed: u64,
) -> Result<Layout, ScenarioError> {
    crossing_with(length, width, per_stream, seed, Places::InOrder)
}

/// [`crossing`] with each stream's places dealt out as `places` says.
///
/// # Errors
/// As [`crossing`].
pub fn crossing_with(
    length: f32,
    width: f32,
    per_stream: usize,
    seed: u64,
    places: Places,
) -> Result<Layout, ScenarioError> {
    check_corridor(length, width)?;
    let margin = PERSON_RADIUS + 0.1;
    let block = length / 5.0;
    let travel = 0.775 * length;
    let (low, high) = (length / 2.0 - width / 2.0, length / 2.0 + width / 2.0);
    let (starts, goals) = two_streams(
        (
            Vec2::new(margin, low + margin),
            Vec2::new(block - margin, high - margin),
        ),
        (
            Vec2::new(low + margin, margin),
            Vec2::new(high - margin, block - margin),
        ),
        (Vec2::new(travel, 0.0), Vec2::new(0.0, travel)),
        per_stream,
        (seed, places),
    )?;
    let plus = [
        [low, 0.0],
        [high, 0.0],
        [high, low],
        [length, low],
        [length, high],
        [high, high],
        [high, length],
        [low, length],
        [low, high],
        [0.0, high],
        [0.0, low],
        [low, low],
    ];
    let line = (Vec2::new(high + 1.0, low), Vec2::new(high + 1.0, high));
    let scenario = build(
        "crossing",
        &format!(
            "{per_stream} people walk west to east and {per_stream} south to north through two corridors {width} m wide crossing at right angles."
        ),
        json!({ "boundary": plus }),
        (&starts, &goals),
        ("east", line),
        600.0,
    )?;
    Ok(Layout { scenario, line })
}

/// Two groups of `count` people each, scattered over their boxes (seeded by `seed`, the
/// second group by a seed of its own derived from it), each person walking `steps.0`
/// (first group) or `steps.1` (second) from its start, its place within its group
/// dealt out as `places` says (see [`group_places`]): the starts and goals, first
/// group first.
fn two_streams(
    first: (Vec2, Vec2),
    second: (Vec2, Vec2),
    steps: (Vec2, Vec2),
    count: usize,
    (seed, places): (u64, Places),
) -> Result<(Vec<Vec2>, Vec<Vec2>), ScenarioError> {
    let one = scatter(first, count, seed)?;
    let two = scatter(second, count, seed ^ 0x9e37_79b9_7f4a_7c15)?;
    let mut dealer = dealer(seed);
    let mut goals = group_places(&one, first, steps.0, places, &mut dealer);
    goals.extend(group_places(&two, second, steps.1, places, &mut dealer));
    let mut starts = one;
    starts.extend_from_slice(&two);
    Ok((starts, goals))
}

/// Orders points along `first`, ties along `second`.
fn along_then(first: Vec2, second: Vec2) -> impl Fn(&Vec2, &Vec2) -> std::cmp::Ordering {
    move |a, b| {
        (a.dot(first).total_cmp(&b.dot(first))).then(a.dot(second).total_cmp(&b.dot(second)))
    }
}

/// The places of a group standing at `starts` in the box `(min, max)`, walking `step`
/// (along an axis): each start moved by `step` ([`Places::InOrder`]); those places
/// dealt out at random ([`Places::Shuffled`]); or each start first reflected across the
/// box's middle along the way, so that the order along the way is reversed
/// ([`Places::Mirrored`]); or the starts in order along the way given the places in
/// order across it ([`Places::Transposed`]); or everyone to the middle of the places
/// ([`Places::Together`]).
fn group_places(
    starts: &[Vec2],
    (min, max): (Vec2, Vec2),
    step: Vec2,
    places: Places,
    dealer: &mut ChaCha8Rng,
) -> Vec<Vec2> {
    let mut goals: Vec<Vec2> = starts.iter().map(|p| *p + step).collect();
    match places {
        Places::InOrder => {}
        Places::Shuffled => goals.shuffle(dealer),
        Places::Mirrored => {
            let way = step.normalize_or_zero();
            let middle = (min + max).dot(way);
            for (goal, start) in goals.iter_mut().zip(starts) {
                *goal += way * (middle - 2.0 * start.dot(way));
            }
        }
        Places::Transposed => {
            let way = step.normalize_or_zero();
            let side = way.perp();
            let mut order: Vec<usize> = (0..starts.len()).collect();
            let along = along_then(way, side);
            order.sort_by(|&a, &b| along(&starts[a], &starts[b]));
            let mut rows = goals.clone();
            rows.sort_by(along_then(side, way));
            for (&i, place) in order.iter().zip(rows) {
                goals[i] = place;
            }
        }
        Places::Together => gather_at_middle(&mut goals),
    }
    goals
}

/// Sends everyone to the middle of `places` (of the box around them).
fn gather_at_middle(places: &mut [Vec2]) {
    let (min, max) = places.iter().fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    places.fill((min + max) / 2.0);
}

fn check_corridor(length: f32, width: f32) -> Result<(), ScenarioError> {
    if !(length.is_finite() && width.is_finite() && width >= 1.0 && length >= 4.0 * width) {
        return Err(ScenarioError::Invalid(format!(
            "corridor {length} x {width} m: must be at least 1 m wide and 4 widths long"
        )));
    }
    Ok(())
}

/// `count` points in the box `(min, max)`, at least two person radii plus 0.1 m apart,
/// drawn uniformly (seeded) by rejection; the order in which they were drawn.
fn scatter((min, max): (Vec2, Vec2), count: usize, seed: u64) -> Result<Vec<Vec2>, ScenarioError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let gap = 2.0 * PERSON_RADIUS + 0.1;
    let mut out: Vec<Vec2> = Vec::with_capacity(count);
    let mut tries = 0usize;
    while out.len() < count {
        tries += 1;
        if tries > 2000 * (count + 1) {
            return Err(ScenarioError::Invalid(format!(
                "{count} people do not fit in a {} x {} m area",
                max.x - min.x,
                max.y - min.y
            )));
        }
        let p = Vec2::new(rng.gen_range(min.x..=max.x), rng.gen_range(min.y..=max.y));
        if out.iter().all(|q| q.distance_squared(p) >= gap * gap) {
            out.push(p);
        }
    }
    Ok(out)
}

/// The scenario as a scenario file would say it (so that keys added to the format later
/// keep their defaults).
fn build(
    name: &str,
    description: &str,
    world: serde_json::Value,
    (starts, goals): (&[Vec2], &[Vec2]),
    (line_name, line): (&str, (Vec2, Vec2)),
    seconds: f32,
) -> Result<Scenario, ScenarioError> {
    let agents: Vec<serde_json::Value> = starts
        .iter()
        .zip(goals)
        .map(|(s, g)| {
            json!({
                "pos": [s.x, s.y],
                "goal": [g.x, g.y],
                "radius": PERSON_RADIUS,
                "max_speed": PERSON_SPEED,
            })
        })
        .collect();
    let value = json!({
        "name": name,
        "description": description,
        "dt": DT,
        "steps": (seconds / DT).round() as u64,
        "world": world,
        "agents": agents,
        "lines": [{"name": line_name, "from": [line.0.x, line.0.y], "to": [line.1.x, line.1.y]}],
    });
    Scenario::from_json(&value.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::file::GoalSpec;
    use super::*;

    #[test]
    fn layouts_build_worlds_with_every_agent_on_the_floor() {
        let layouts = [
            door(30.0, 1.0, 120, 1).expect("door"),
            door(30.0, 2.4, 120, 2).expect("wide door"),
            counterflow(40.0, 4.0, 40, 3).expect("counterflow"),
            crossing(40.0, 4.0, 40, 4).expect("crossing"),
            door_with(30.0, 1.0, 120, 1, Places::Shuffled).expect("door"),
            door_with(30.0, 1.6, 120, 1, Places::Mirrored).expect("door"),
            counterflow_with(40.0, 4.0, 40, 3, Places::Mirrored).expect("counterflow"),
            crossing_with(40.0, 4.0, 40, 4, Places::Mirrored).expect("crossing"),
            crossing_with(40.0, 4.0, 40, 5, Places::Shuffled).expect("crossing"),
            door_shaped(30.0, 1.6, 120, 1, Places::InOrder, shape(0.2, 0.0)).expect("thin"),
            door_shaped(30.0, 1.0, 120, 1, Places::Shuffled, shape(4.0, 0.0)).expect("long"),
            door_shaped(30.0, 2.4, 120, 1, Places::InOrder, shape(1.0, -13.8)).expect("corner"),
        ];
        for layout in &layouts {
            let world = layout.scenario.build(None).expect("builds");
            let mesh = world.mesh().expect("a level");
            for a in world.agents() {
                let room = mesh.clearance(a.position).unwrap_or(0.0);
                assert!(
                    room >= a.radius,
                    "{}: agent at {} has room {room}",
                    layout.scenario.name,
                    a.position
                );
                let goal = world_goal(a);
                assert!(
                    mesh.clearance(goal).unwrap_or(0.0) >= a.radius,
                    "{}: goal {goal} off the floor",
                    layout.scenario.name
                );
            }
        }
    }

    fn shape(wall: f32, offset: f32) -> DoorShape {
        DoorShape { wall, offset }
    }

    #[test]
    fn the_issues_door_is_a_wall_1_m_thick_with_the_door_in_its_middle() {
        let layout = door_with(30.0, 1.2, 120, 7, Places::Mirrored).expect("door");
        let value = serde_json::to_value(&layout.scenario).expect("json");
        let obstacles = &value["world"]["obstacles"];
        // The door's sides, 15 m ∓ 0.6 m in single precision.
        let (low, high) = (f64::from(14.4f32), f64::from(15.6f32));
        let expected = serde_json::json!([
            [[30.0, 0.0], [31.0, 0.0], [31.0, low], [30.0, low]],
            [[30.0, high], [31.0, high], [31.0, 30.0], [30.0, 30.0]],
        ]);
        assert_eq!(obstacles, &expected);
        assert_eq!(
            value["world"]["boundary"],
            serde_json::json!([[0.0, 0.0], [61.0, 0.0], [61.0, 30.0], [0.0, 30.0]])
        );
        assert_eq!(layout.line, (Vec2::new(31.0, 14.4), Vec2::new(31.0, 15.6)));
        // The places begin 4 m past the wall.
        let world = layout.scenario.build(None).expect("builds");
        let nearest = world
            .agents()
            .iter()
            .map(|a| world_goal(a).x)
            .fold(f32::INFINITY, f32::min);
        assert_eq!(nearest, 35.0);
    }

    #[test]
    fn door_shapes_place_the_wall_and_the_line() {
        let long = door_shaped(30.0, 1.0, 120, 1, Places::InOrder, shape(4.0, 2.0)).expect("long");
        assert_eq!(long.line, (Vec2::new(34.0, 16.5), Vec2::new(34.0, 17.5)));
        // A door at the room's corner leaves one piece of wall.
        let corner =
            door_shaped(30.0, 2.0, 120, 1, Places::InOrder, shape(1.0, -14.0)).expect("corner");
        let world = corner.scenario.build(None).expect("builds");
        let mesh = world.mesh().expect("a level");
        assert!(mesh.clearance(Vec2::new(30.5, 1.0)).unwrap_or(0.0) > 0.9);
        assert!(mesh.clearance(Vec2::new(30.5, 3.0)).is_none());
    }

    #[test]
    fn door_shapes_out_of_bounds_are_refused() {
        for (wall, offset) in [
            (0.0, 0.0),
            (-1.0, 0.0),
            (f32::NAN, 0.0),
            (31.0, 0.0),
            (1.0, 14.6),
            (1.0, -14.6),
            (1.0, f32::NAN),
        ] {
            let refused = door_shaped(30.0, 1.0, 120, 1, Places::InOrder, shape(wall, offset));
            assert!(
                matches!(refused, Err(ScenarioError::Invalid(_))),
                "wall {wall}, offset {offset}"
            );
        }
    }

    fn world_goal(a: &crate::world::Agent) -> Vec2 {
        match a.goal {
            crate::world::Goal::Point(p) => p,
            _ => panic!("point goals only"),
        }
    }

    #[test]
    fn seeds_scatter_differently_and_bad_sizes_are_refused() {
        let a = door(30.0, 1.0, 50, 1).expect("door");
        let b = door(30.0, 1.0, 50, 2).expect("door");
        assert_ne!(a.scenario.agents[0].pos, b.scenario.agents[0].pos);
        assert_eq!(
            door(30.0, 1.0, 50, 1).expect("door").scenario,
            a.scenario,
            "same seed, same layout"
        );
        assert!(door(30.0, 0.4, 10, 1).is_err());
        assert!(door(f32::NAN, 1.0, 10, 1).is_err());
        assert!(counterflow(10.0, 4.0, 10, 1).is_err());
        assert!(crossing(40.0, 4.0, 10_000, 1).is_err());
    }

    /// Every way of dealing out places gives the same starts and the same set of
    /// places; shuffled is a permutation, mirrored reverses the order along the way.
    #[test]
    fn places_are_the_same_set_dealt_out_differently() {
        let sorted = |mut v: Vec<[f32; 2]>| {
            v.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
            v
        };
        let goal = |g: &GoalSpec| match *g {
            GoalSpec::Point(p) => p,
            _ => panic!("point goals only"),
        };
        let places = |l: &Layout| -> Vec<[f32; 2]> {
            l.scenario
                .agents
                .iter()
                .map(|a| goal(&a.goal).to_array())
                .collect()
        };
        let starts = |l: &Layout| -> Vec<[f32; 2]> {
            l.scenario.agents.iter().map(|a| a.pos.to_array()).collect()
        };
        let in_order = door(30.0, 1.0, 120, 7).expect("door");
        for dealt in [Places::Shuffled, Places::Mirrored, Places::Transposed] {
            let other = door_with(30.0, 1.0, 120, 7, dealt).expect("door");
            assert_eq!(starts(&other), starts(&in_order), "{dealt:?}");
            assert_ne!(places(&other), places(&in_order), "{dealt:?}");
            assert_eq!(
                sorted(places(&other)),
                sorted(places(&in_order)),
                "{dealt:?}"
            );
        }
        let in_order = crossing(40.0, 4.0, 40, 7).expect("crossing");
        let shuffled = crossing_with(40.0, 4.0, 40, 7, Places::Shuffled).expect("crossing");
        assert_eq!(starts(&shuffled), starts(&in_order));
        assert_eq!(sorted(places(&shuffled)), sorted(places(&in_order)));
        assert_ne!(places(&shuffled), places(&in_order));
        // Mirrored: of two people of the eastbound stream, the one further east stops
        // further west.
        let mirrored = counterflow_with(40.0, 4.0, 40, 7, Places::Mirrored).expect("counterflow");
        let dealt = |l: &Layout| -> Vec<(Vec2, Vec2)> {
            l.scenario
                .agents
                .iter()
                .map(|a| (a.pos, goal(&a.goal)))
                .collect()
        };
        let east = &dealt(&mirrored)[..40];
        for &(a, a_goal) in east {
            for &(b, b_goal) in east {
                if a.x < b.x {
                    assert!(a_goal.x > b_goal.x, "{a} to {a_goal}, {b} to {b_goal}");
                }
            }
            assert!((a_goal.y - a.y).abs() < 1e-6, "straight on");
        }
        // Transposed: of two people at a door, the one nearer the door never has the
        // lower place; in a corridor, the same places dealt out otherwise.
        let transposed = dealt(&door_with(30.0, 1.0, 120, 7, Places::Transposed).expect("door"));
        for &(a, a_goal) in &transposed {
            for &(b, b_goal) in &transposed {
                if a.x < b.x {
                    assert!(a_goal.y <= b_goal.y, "{a} to {a_goal}, {b} to {b_goal}");
                }
            }
        }
        let crossed = crossing_with(40.0, 4.0, 40, 7, Places::Transposed).expect("crossing");
        assert_eq!(sorted(places(&crossed)), sorted(places(&in_order)));
        assert_ne!(places(&crossed), places(&in_order));
        assert_eq!("shuffled".parse::<Places>().ok(), Some(Places::Shuffled));
        assert_eq!(
            "transposed".parse::<Places>().ok(),
            Some(Places::Transposed)
        );
        assert!("sideways".parse::<Places>().is_err());
    }
}
