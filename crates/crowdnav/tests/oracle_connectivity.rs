//! The gate widths against an independent oracle: for every query of
//! `../shared/data/oracle/public` (exact answers from a tangent visibility graph), a
//! disc of radius r can get from start to goal crossing only triangles whose gate
//! width is at least 2r iff the oracle found a path.
//!
//! The data is not part of the repository; without it the test prints a note and passes,
//! except in CI (`CI=true`), where it fails.

mod common;
use common::{data_dir, files_with_extension};
use crowdnav::mesh::{Level, Location, NavMesh, TriangleId};
use glam::Vec2;
use std::collections::{HashSet, VecDeque};

fn point(v: &serde_json::Value) -> Vec2 {
    Vec2::new(
        v[0].as_f64().expect("x") as f32,
        v[1].as_f64().expect("y") as f32,
    )
}

fn clearance(mesh: &NavMesh, p: Vec2) -> f32 {
    mesh.walls()
        .map(|s| s.distance(p))
        .fold(f32::INFINITY, f32::min)
}

/// Start and goal need room; then breadth-first over (triangle, entry edge), leaving
/// the start triangle through any edge that is not a wall and wide enough, and crossing
/// every later triangle only where `can_cross` allows.
fn connected(mesh: &NavMesh, start: Vec2, goal: Vec2, r: f32) -> bool {
    let (Location::Walkable(ts), Location::Walkable(tg)) = (mesh.locate(start), mesh.locate(goal))
    else {
        return false;
    };
    if clearance(mesh, start) < r || clearance(mesh, goal) < r {
        return false;
    }
    if ts == tg {
        return true;
    }
    let portal_open = |t: TriangleId, e: usize| {
        let ids = mesh.triangle_vertex_ids(t);
        let (a, b) = (ids[e], ids[(e + 1) % 3]);
        let both = mesh.is_obstacle_vertex(a) && mesh.is_obstacle_vertex(b);
        !mesh.is_wall(t, e) && (!both || mesh.edge_segment(t, e).length() >= 2.0 * r)
    };
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    let enter = |t: TriangleId,
                 e: usize,
                 queue: &mut VecDeque<(TriangleId, usize)>,
                 seen: &mut HashSet<(TriangleId, usize)>| {
        if let Some(nb) = mesh.neighbor(t, e) {
            let back = (0..3)
                .find(|&k| mesh.neighbor(nb, k) == Some(t))
                .expect("adjacency is symmetric");
            if seen.insert((nb, back)) {
                queue.push_back((nb, back));
            }
        }
    };
    for e in 0..3 {
        if portal_open(ts, e) {
            enter(ts, e, &mut queue, &mut seen);
        }
    }
    while let Some((t, entry)) = queue.pop_front() {
        if t == tg {
            return true;
        }
        for exit in 0..3 {
            if exit != entry && mesh.can_cross(t, entry, exit, r) {
                enter(t, exit, &mut queue, &mut seen);
            }
        }
    }
    false
}

#[test]
fn gate_widths_decide_reachability_exactly_as_the_oracle() {
    let Some(dir) = data_dir() else {
        return;
    };
    let files = files_with_extension(&dir.join("oracle/public"), "json", false);
    assert_eq!(files.len(), 30, "the oracle set has 30 worlds");
    let (mut checked, mut wrong) = (0, Vec::new());
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("oracle JSON");
        let level: Level = serde_json::from_value(doc["world"].clone()).expect("world");
        let mesh = NavMesh::from_level(&level).expect("oracle world builds");
        for (i, q) in doc["queries"]
            .as_array()
            .expect("queries")
            .iter()
            .enumerate()
        {
            let r = q["radius"].as_f64().expect("radius") as f32;
            let expected = !q["length"].is_null();
            let got = connected(&mesh, point(&q["from"]), point(&q["to"]), r);
            if got != expected {
                wrong.push(format!(
                    "{} query {i} (r = {r}): oracle {expected}, widths {got}",
                    path.file_name().and_then(|n| n.to_str()).unwrap_or("?")
                ));
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 300);
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
