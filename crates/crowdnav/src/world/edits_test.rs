//! Mesh edits between steps: who re-plans (only the agents an edit can concern), who
//! is moved (nobody left inside an obstacle, nobody overlapping), bad edits refused
//! without a trace, and the same bits on one and two threads.

use super::*;
use crate::mesh::{EditError, Level, MeshObstacleId, NavMesh};
use crate::scenario::Report;
use crate::steer::Orca;
use glam::Vec2;
use rand::{Rng, SeedableRng};

fn mesh(json: &str) -> NavMesh {
    NavMesh::from_level(&Level::from_json(json).expect("valid level")).expect("mesh builds")
}

/// An open room 40 × 20 m.
fn open_room() -> NavMesh {
    mesh(r#"{"boundary": [[0,0],[40,0],[40,20],[0,20]]}"#)
}

/// A room 40 × 20 m split by a wall at x 19–21 with a door at y 8–12 and a gap at the
/// top, y 18–20.
fn split_room() -> NavMesh {
    mesh(
        r#"{"boundary": [[0,0],[40,0],[40,20],[0,20]],
            "obstacles": [[[19,-1],[21,-1],[21,8],[19,8]], [[19,12],[21,12],[21,18],[19,18]]]}"#,
    )
}

/// A box from `lo` to `hi`.
fn rect(lo: (f32, f32), hi: (f32, f32)) -> [Vec2; 4] {
    [(lo.0, lo.1), (hi.0, lo.1), (hi.0, hi.1), (lo.0, hi.1)].map(Vec2::from)
}

fn world(mesh: NavMesh) -> World {
    World::new(
        Some(mesh),
        Box::new(Orca::default()),
        WorldParams::default(),
    )
}

fn add(world: &mut World, from: (f32, f32), to: (f32, f32)) -> AgentId {
    world
        .add_agent(AgentParams::new(Vec2::from(from), Vec2::from(to)))
        .expect("valid agent")
}

fn path_of(world: &World, id: AgentId) -> crate::path::Path {
    world
        .agent(id)
        .and_then(|a| a.path().cloned())
        .expect("it has a path")
}

fn replanned(world: &World) -> Vec<AgentId> {
    world
        .agent_events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Replanned(id) => Some(*id),
            _ => None,
        })
        .collect()
}

/// Distance from `p` to the box `r` (0 inside).
fn box_distance(r: &[Vec2; 4], p: Vec2) -> f32 {
    let (lo, hi) = (r[0], r[2]);
    (p - p.clamp(lo, hi)).length()
}

#[test]
fn an_added_obstacle_replans_only_the_agents_whose_way_it_blocks() {
    let mut w = world(open_room());
    let blocked = add(&mut w, (2.0, 5.0), (38.0, 5.0));
    let beside = add(&mut w, (2.0, 8.2), (38.0, 8.2));
    let far = add(&mut w, (2.0, 15.0), (38.0, 15.0));
    w.step(0.1).expect("valid step");
    let before: Vec<_> = [blocked, beside, far].map(|id| path_of(&w, id)).into();
    // A crate from y 3 to 7 across the first's way; the second passes 1.2 m above it,
    // more than its radius (0.5) away.
    let edit = w
        .add_mesh_obstacle(&rect((19.0, 3.0), (21.0, 7.0)))
        .expect("valid edit");
    assert_eq!(edit.replanning, vec![blocked]);
    assert!(edit.moved.is_empty());
    let replans = w.metrics().replans;
    w.step(0.1).expect("valid step");
    assert_eq!(replanned(&w), vec![blocked]);
    assert_eq!(w.metrics().replans, replans + 1, "the metrics count it");
    assert_eq!(Report::of_world("edit", &w).replans, w.metrics().replans);
    assert!(path_of(&w, blocked).length() > 34.0 + 0.1, "it goes round");
    for (id, old) in [(beside, &before[1]), (far, &before[2])] {
        assert_eq!(&path_of(&w, id), old, "{id} keeps its path");
    }
}

#[test]
fn a_removed_obstacle_replans_the_agents_it_may_give_a_short_cut_even_far_from_it() {
    let mut w = world(split_room());
    let door = w
        .add_mesh_obstacle(&rect((19.0, 7.5), (21.0, 12.5)))
        .expect("valid edit")
        .obstacle;
    // Crossing the room under the wall: round by the top gap while the door is shut.
    let crossing = add(&mut w, (2.0, 2.0), (38.0, 2.0));
    // Walking about in the left half, nowhere near the door.
    let local = add(&mut w, (2.0, 15.0), (8.0, 17.0));
    w.step(0.1).expect("valid step");
    let long_way = path_of(&w, crossing);
    assert!(long_way.length() > 45.0, "{}", long_way.length());
    // The crossing agent's way passes nowhere near the door...
    let door_box = rect((19.0, 7.5), (21.0, 12.5));
    let near = long_way
        .points()
        .windows(2)
        .flat_map(|s| (0..=20).map(move |k| s[0].lerp(s[1], k as f32 / 20.0)))
        .map(|p| box_distance(&door_box, p))
        .fold(f32::INFINITY, f32::min);
    assert!(near > 4.0, "its path passes {near} m from the door");
    let local_path = path_of(&w, local);
    // ... yet opening the door gives it a short cut.
    let edit = w.remove_mesh_obstacle(door).expect("valid edit");
    assert!(edit.replanning.is_empty());
    assert_eq!(edit.improving, vec![crossing]);
    w.step(0.1).expect("valid step");
    assert_eq!(replanned(&w), vec![crossing]);
    assert!(path_of(&w, crossing).length() < 40.0);
    assert_eq!(path_of(&w, local), local_path);
}

#[test]
fn an_agent_caught_inside_a_new_obstacle_is_moved_to_the_nearest_place_it_fits() {
    let mut w = world(open_room());
    let caught = add(&mut w, (10.0, 10.0), (10.0, 10.0));
    let grazed = add(&mut w, (14.5, 10.0), (14.5, 10.0));
    for _ in 0..3 {
        w.step(0.1).expect("valid step");
    }
    // The box covers the first's centre; its side stops 0.3 m from the second's
    // centre, closer than its radius.
    let b = rect((9.0, 8.0), (14.2, 12.5));
    let edit = w.add_mesh_obstacle(&b).expect("valid edit");
    assert_eq!(edit.moved, vec![caught, grazed]);
    assert_eq!(edit.replanning, vec![caught, grazed]);
    let mesh = w.mesh().expect("a mesh");
    for id in [caught, grazed] {
        let a = w.agent(id).expect("in the world");
        let room = mesh.clearance(a.position).expect("on the mesh");
        assert!(room >= a.radius - 1e-4, "{id}: room {room}");
        assert!(box_distance(&b, a.position) >= a.radius - 1e-4);
    }
    // The first was 1 m inside the box's nearest side: it is now just outside it.
    let p = w.agent(caught).expect("in the world").position;
    assert!(p.distance(Vec2::new(8.5, 10.0)) < 1e-3, "{p}");
    w.step(0.1).expect("valid step");
    assert_eq!(replanned(&w), vec![caught, grazed]);
}

#[test]
fn a_door_closing_on_a_queue_leaves_nobody_inside_the_door_and_nobody_overlapping() {
    // A 2 m door at y 9–11 in a wall at x 19–21.
    let level = r#"{"boundary": [[0,0],[40,0],[40,20],[0,20]],
        "obstacles": [[[19,-1],[21,-1],[21,9],[19,9]], [[19,11],[21,11],[21,21],[19,21]]]}"#;
    let mut w = world(mesh(level));
    for k in 0..24 {
        let from = (10.0 + 1.2 * (k % 6) as f32, 6.0 + 1.6 * (k / 6) as f32);
        w.add_agent(AgentParams::new(Vec2::from(from), Vec2::new(35.0, 10.0)).with_radius(0.3))
            .expect("valid agent");
    }
    let in_door = |w: &World| {
        w.agents()
            .iter()
            .filter(|a| (19.0..=21.0).contains(&a.position.x))
            .count()
    };
    let mut steps = 0;
    while in_door(&w) < 3 {
        w.step(0.1).expect("valid step");
        steps += 1;
        assert!(steps < 600, "the queue never reached the door");
    }
    // The door shuts: a slab over the opening, overlapping the wall on both sides.
    let door = rect((19.0, 8.5), (21.0, 11.5));
    let edit = w.add_mesh_obstacle(&door).expect("valid edit");
    assert!(edit.moved.len() >= 3, "{} moved", edit.moved.len());
    let check = |w: &World, slack: f32| {
        let agents = w.agents();
        for a in agents {
            assert!(
                box_distance(&door, a.position) >= a.radius - slack,
                "{} is in the door at {}",
                a.id,
                a.position
            );
        }
        for (i, a) in agents.iter().enumerate() {
            for b in &agents[i + 1..] {
                let gap = a.position.distance(b.position) - a.radius - b.radius;
                assert!(gap >= -slack, "{} and {} overlap by {}", a.id, b.id, -gap);
            }
        }
    };
    check(&w, 1e-4);
    // The next steps keep it so (up to the contacts' depenetration tolerance).
    for _ in 0..20 {
        w.step(0.1).expect("valid step");
        check(&w, 0.01 * 0.3);
    }
}

#[test]
fn a_bad_edit_is_refused_and_leaves_the_world_as_it_was() {
    let mut ground = World::new(None, Box::new(Orca::default()), WorldParams::default());
    assert_eq!(
        ground
            .add_mesh_obstacle(&rect((1.0, 1.0), (2.0, 2.0)))
            .err(),
        Some(WorldError::NoMesh)
    );
    let mut w = world(open_room());
    let a = add(&mut w, (2.0, 5.0), (38.0, 5.0));
    w.step(0.1).expect("valid step");
    let id = w
        .add_mesh_obstacle(&rect((30.0, 15.0), (32.0, 17.0)))
        .expect("valid edit")
        .obstacle;
    let path = path_of(&w, a);
    let mut nan = rect((19.0, 3.0), (21.0, 7.0));
    nan[2].x = f32::NAN;
    assert_eq!(
        w.add_mesh_obstacle(&nan).err(),
        Some(WorldError::Edit(EditError::NonFinite { vertex: 2 }))
    );
    assert!(matches!(
        w.move_mesh_obstacle(id, &rect((50.0, 3.0), (52.0, 7.0))),
        Err(WorldError::Edit(EditError::OutsideMesh { .. }))
    ));
    w.remove_mesh_obstacle(id).expect("valid edit");
    assert_eq!(
        w.remove_mesh_obstacle(id).err(),
        Some(WorldError::Edit(EditError::UnknownObstacle(id)))
    );
    assert_eq!(w.mesh().map(NavMesh::edit_count), Some(2));
    w.step(0.1).expect("valid step");
    assert!(replanned(&w).is_empty());
    assert_eq!(path_of(&w, a), path);
}

/// The crowd's fingerprint (as in the handles' tests) and the re-plans counted.
fn fingerprint(world: &World) -> u64 {
    let replans = world.metrics().replans;
    let h = super::handles_test::fingerprint(world);
    super::handles_test::fnv(h, [replans as u32, (replans >> 32) as u32])
}

/// A crowd crossing the split room while boxes are dropped, moved and removed, on a
/// pool of `threads` threads: the fingerprint after every step.
fn edited_run(seed: u64, threads: usize) -> Vec<u64> {
    super::handles_test::on_threads(threads, || {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut w = world(split_room());
        for k in 0..40 {
            let y = 1.0 + (k % 10) as f32 * 1.8;
            let (from, to) = if k % 2 == 0 { (2.0, 38.0) } else { (38.0, 2.0) };
            add(&mut w, (from + (k / 10) as f32, y), (to, 19.0 - y));
        }
        let mut boxes: Vec<MeshObstacleId> = Vec::new();
        let mut prints = Vec::new();
        let mut edits = 0;
        for step in 0..150 {
            if step % 5 == 4 {
                let at = Vec2::new(rng.gen_range(3.0..37.0), rng.gen_range(2.0..18.0));
                let b = rect((at.x - 1.0, at.y - 1.0), (at.x + 1.0, at.y + 1.0));
                let done = match (rng.gen_range(0..3), boxes.is_empty()) {
                    (0, false) => {
                        let id = boxes.swap_remove(rng.gen_range(0..boxes.len()));
                        w.remove_mesh_obstacle(id).map(|_| ())
                    }
                    (1, false) => {
                        let id = boxes[rng.gen_range(0..boxes.len())];
                        w.move_mesh_obstacle(id, &b).map(|_| ())
                    }
                    _ => w.add_mesh_obstacle(&b).map(|e| boxes.push(e.obstacle)),
                };
                edits += usize::from(done.is_ok());
            }
            w.step(0.1).expect("valid step");
            prints.push(fingerprint(&w));
        }
        assert!(edits > 20 && w.metrics().replans > 0);
        prints
    })
}

#[test]
fn edits_give_the_same_bits_on_one_and_two_threads() {
    let one = edited_run(7, 1);
    assert_eq!(one, edited_run(7, 2), "1 and 2 threads differ");
}

#[test]
fn a_move_replans_who_the_old_place_may_shorten_and_who_the_new_place_blocks() {
    let mut w = world(open_room());
    let crate_ = w
        .add_mesh_obstacle(&rect((19.0, 3.0), (21.0, 7.0)))
        .expect("valid edit")
        .obstacle;
    // Round the crate's top corner, along y = 15, and round its ends, far to the left.
    let round = add(&mut w, (10.0, 5.0), (30.0, 5.0));
    let upper = add(&mut w, (10.0, 15.0), (30.0, 15.0));
    let aside = add(&mut w, (2.0, 18.0), (6.0, 18.0));
    w.step(0.1).expect("valid step");
    assert!(path_of(&w, round).length() > 20.1);
    let kept = path_of(&w, aside);
    // The crate slides up across the upper way.
    let edit = w
        .move_mesh_obstacle(crate_, &rect((19.0, 13.0), (21.0, 17.0)))
        .expect("valid edit");
    assert_eq!(edit.replanning, vec![upper]);
    assert_eq!(edit.improving, vec![round]);
    w.step(0.1).expect("valid step");
    assert_eq!(replanned(&w), vec![round, upper]);
    assert!(
        (path_of(&w, round).length() - 20.0).abs() < 0.2,
        "straight now"
    );
    assert!(path_of(&w, upper).length() > 20.1, "round it now");
    assert_eq!(path_of(&w, aside), kept);
}

#[test]
fn an_agent_heading_for_a_substitute_goal_replans_on_every_removal() {
    let mut w = world(open_room());
    let wall = w
        .add_mesh_obstacle(&rect((19.0, 0.5), (21.0, 19.5)))
        .expect("valid edit");
    // A wide agent (radius 1) cannot pass the 0.5 m gaps: it heads for the nearest
    // point it can reach.
    let wide = w
        .add_agent(AgentParams::new(Vec2::new(5.0, 10.0), Vec2::new(35.0, 10.0)).with_radius(1.0))
        .expect("valid agent");
    w.step(0.1).expect("valid step");
    assert!(w.agent(wide).is_some_and(|a| a.reachable_goal().is_some()));
    // A box removed far from it frees nothing it needs, but it re-plans: what it can
    // reach may have grown.
    let far = w
        .add_mesh_obstacle(&rect((3.0, 1.0), (4.0, 2.0)))
        .expect("valid edit");
    assert!(far.replanning.is_empty());
    let edit = w.remove_mesh_obstacle(far.obstacle).expect("valid edit");
    assert_eq!(edit.improving, vec![wide]);
    w.step(0.1).expect("valid step");
    // The wall goes: its goal is in reach.
    w.remove_mesh_obstacle(wall.obstacle).expect("valid edit");
    w.step(0.1).expect("valid step");
    assert!(w.agent(wide).is_some_and(|a| a.reachable_goal().is_none()));
}

/// A removal that may give many agents a short cut lets them plan again over the next
/// steps, `IMPROVE_PER_STEP` a step in agent order, each following its (still free)
/// path meanwhile: no hitch of hundreds of plans in one step.
#[test]
fn a_removal_spreads_the_replans_it_allows_over_the_steps() {
    let mut w = world(split_room());
    let door = w
        .add_mesh_obstacle(&rect((19.0, 7.5), (21.0, 12.5)))
        .expect("valid edit")
        .obstacle;
    // A block of agents under the wall, all crossing the room round the top gap.
    let n = 2 * IMPROVE_PER_STEP + 5;
    let ids: Vec<AgentId> = (0..n)
        .map(|k| {
            let (x, y) = (1.0 + 2.0 * (k % 9) as f32, 1.0 + 1.5 * (k / 9) as f32);
            add(&mut w, (x, y), (38.0, y))
        })
        .collect();
    w.step(0.1).expect("valid step");
    let long: Vec<f64> = ids.iter().map(|&id| path_of(&w, id).length()).collect();
    let edit = w.remove_mesh_obstacle(door).expect("valid edit");
    assert!(edit.replanning.is_empty());
    assert_eq!(edit.improving, ids, "every one may take the short cut");
    for (k, chunk) in ids.chunks(IMPROVE_PER_STEP).enumerate() {
        let before: Vec<_> = ids.iter().map(|&id| path_of(&w, id)).collect();
        w.step(0.1).expect("valid step");
        assert_eq!(replanned(&w), chunk, "step {k}: the next in agent order");
        for (id, old) in ids.iter().zip(&before) {
            if !chunk.contains(id) {
                assert_eq!(&path_of(&w, *id), old, "{id} keeps its path meanwhile");
            }
        }
    }
    w.step(0.1).expect("valid step");
    assert!(replanned(&w).is_empty(), "all done");
    for (&id, long) in ids.iter().zip(long) {
        let now = path_of(&w, id).length();
        assert!(
            now < long - 5.0,
            "{id} takes the short cut: {now} m, {long} m before"
        );
    }
}

/// The world's walls after `follow`ing the edits, against the walls of the edited mesh
/// built whole on the same cells: the same segments in the same order, the same
/// grid, the same bookkeeping.
fn assert_walls_as_built(w: &World, what: &str) {
    let built = super::index::Walls::on_layout(w.mesh(), w.walls.grid.layout());
    let bits = |s: &[crate::geom::Segment]| -> Vec<[u32; 4]> {
        s.iter()
            .map(|w| [w.a.x, w.a.y, w.b.x, w.b.y].map(f32::to_bits))
            .collect()
    };
    assert_eq!(
        bits(&w.walls.segments),
        bits(&built.segments),
        "{what}: wall list"
    );
    let fresh: Vec<crate::geom::Segment> =
        w.mesh().map(|m| m.walls().collect()).unwrap_or_default();
    assert_eq!(
        bits(&w.walls.segments),
        bits(&fresh),
        "{what}: NavMesh::walls"
    );
    assert!(w.walls.grid.same_as(&built.grid), "{what}: wall grid");
    assert!(
        w.walls.same_bookkeeping(&built),
        "{what}: per-triangle records"
    );
}

/// Random sequences of adds, moves and removes (boxes and quadrilaterals, overlapping
/// each other, the level's obstacles and its boundary; some refused) on seeded random
/// rooms: after every edit the world's walls and wall grid, updated where the edit
/// changed them, are to the bit those built whole from the edited mesh.
#[test]
fn walls_follow_random_edits_as_a_whole_build_gives_them() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
    let (mut edits, mut changed) = (0, 0);
    for room in 0..24 {
        let mut level = String::from(
            r#"{"boundary": [[0,0],[40,0],[40,20],[20,20],[20,30],[0,30]], "obstacles": ["#,
        );
        let count = rng.gen_range(0..6);
        for k in 0..count {
            let (x, y) = (rng.gen_range(2.0..36.0f32), rng.gen_range(2.0..16.0f32));
            let (sx, sy) = (rng.gen_range(0.5..3.0f32), rng.gen_range(0.5..3.0f32));
            let sep = if k == 0 { "" } else { "," };
            level.push_str(&format!(
                "{sep}[[{x},{y}],[{},{y}],[{},{}],[{x},{}]]",
                x + sx,
                x + sx,
                y + sy,
                y + sy
            ));
        }
        level.push_str("]}");
        let mut w = world(mesh(&level));
        let mut live: Vec<MeshObstacleId> = Vec::new();
        for step in 0..30 {
            let what = format!("room {room} step {step}");
            let before = w.walls.segments.len();
            let c = Vec2::new(rng.gen_range(-1.0..41.0), rng.gen_range(-1.0..31.0));
            let h = Vec2::new(rng.gen_range(0.2..4.0), rng.gen_range(0.2..4.0));
            let a: f32 = rng.gen_range(0.0..std::f32::consts::TAU);
            let polygon: Vec<Vec2> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .iter()
                .map(|&(x, y)| {
                    let q = c + Vec2::from_angle(a).rotate(Vec2::new(x * h.x, y * h.y));
                    if rng.gen_bool(0.3) {
                        (q * 4.0).round() / 4.0
                    } else {
                        q
                    }
                })
                .collect();
            let op = rng.gen_range(0..4);
            let done = if op <= 1 || live.is_empty() {
                w.add_mesh_obstacle(&polygon).map(|e| live.push(e.obstacle))
            } else {
                let k = rng.gen_range(0..live.len());
                if op == 2 {
                    w.remove_mesh_obstacle(live.swap_remove(k)).map(|_| ())
                } else {
                    w.move_mesh_obstacle(live[k], &polygon).map(|_| ())
                }
            };
            edits += usize::from(done.is_ok());
            changed += usize::from(w.walls.segments.len() != before);
            assert_walls_as_built(&w, &what);
        }
    }
    assert!(
        edits > 400 && changed > 300,
        "{edits} edits, {changed} changed the walls"
    );
}
