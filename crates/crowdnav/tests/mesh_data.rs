//! Builds a navigation mesh from every third-party level file in the shared data
//! directory (`../shared/data` beside the repository) and checks it: invariants, walls
//! that match the imported ones in total length, and — on the small maps — gate widths
//! against brute force over every wall.
//!
//! The data is not part of the repository; without it the tests print a note and pass,
//! except in CI (`CI=true`), where they fail.
//! except in CI (`CI=true`), where they fail.

mod common;
use common::{data_dir, data_dir_at, files_with_extension};

#[test]
fn missing_data_is_a_skip_outside_ci_and_a_failure_in_ci() {
    let nowhere = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("no-such-data");
    assert_eq!(data_dir_at(&nowhere, false), Ok(None));
    let why = data_dir_at(&nowhere, true).expect_err("CI needs the data");
    assert!(
        why.contains("no-such-data") && why.contains("CI=true"),
        "{why}"
    );
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(data_dir_at(here, true), Ok(Some(here.to_owned())));
}
use crowdnav::mesh::{read_walls, Location, NavMesh};

fn all_level_files() -> Vec<std::path::PathBuf> {
    let Some(dir) = data_dir() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for sub in ["polyanya-v2", "polyanya-v3", "polyanya-cpp-tests"] {
        files.extend(files_with_extension(&dir.join(sub), "mesh", false));
    }
    files.extend(files_with_extension(&dir.join("movingai"), "map", true));
    files
}

#[test]
fn every_shared_level_file_builds_a_valid_mesh() {
    let files = all_level_files();
    for path in &files {
        let walls = read_walls(path).unwrap_or_else(|e| panic!("{e}"));
        let mesh =
            NavMesh::from_walls(&walls).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        mesh.check_invariants();
        // Every input wall piece separates walkable from blocked space, so the mesh's
        // walls have the same total length.
        let input: f64 = walls.segments.iter().map(|s| f64::from(s.length())).sum();
        let built: f64 = mesh.walls().map(|s| f64::from(s.length())).sum();
        assert!(
            (input - built).abs() <= 1e-6 * input,
            "{}: wall length {built} after building, {input} imported",
            path.display()
        );
        // The midpoint of every wall lies on the boundary of walkable space.
        for s in mesh.walls().step_by(97) {
            let mid = (s.a + s.b) * 0.5;
            let inward = (s.b - s.a).perp().normalize() * 1e-3;
            assert!(
                matches!(mesh.locate(mid + inward), Location::Walkable(_)),
                "{}: left of wall {s:?} is not walkable",
                path.display()
            );
        }
        println!(
            "{}: {} vertices, {} triangles, walkable area {:.1}",
            path.display(),
            mesh.vertices().len(),
            mesh.triangle_count(),
            mesh.walkable_area()
        );
    }
    if !files.is_empty() {
        // The shared data set holds 22 level files (MANIFEST.txt): fewer than 20 means a
        // partly fetched set, not a map dropped upstream.
        assert!(
            files.len() >= 20,
            "expected the whole data set, found {}",
            files.len()
        );
    }
}

#[test]
fn gate_widths_on_a_real_map_match_brute_force() {
    let Some(dir) = data_dir() else {
        return;
    };
    let walls = read_walls(&dir.join("polyanya-v2/arena.mesh")).expect("arena imports");
    let mesh = NavMesh::from_walls(&walls).expect("arena builds");
    let all_walls: Vec<_> = mesh.walls().collect();
    let mut checked = 0;
    for t in mesh.walkable_triangles() {
        let ids = mesh.triangle_vertex_ids(t);
        for corner in 0..3 {
            let c = mesh.vertices()[ids[corner].index()].as_dvec2();
            let a = mesh.vertices()[ids[(corner + 1) % 3].index()].as_dvec2();
            let b = mesh.vertices()[ids[(corner + 2) % 3].index()].as_dvec2();
            let (u, w) = (a - c, b - c);
            let in_wedge = |p: glam::DVec2| u.perp_dot(p - c) >= 0.0 && (p - c).perp_dot(w) >= 0.0;
            // Brute force: sample every wall densely, keep samples in the wedge.
            let mut best = f64::INFINITY;
            for s in all_walls
                .iter()
                .filter(|s| s.a.as_dvec2() != c && s.b.as_dvec2() != c)
            {
                let (p, q) = (s.a.as_dvec2(), s.b.as_dvec2());
                let n = 400;
                for k in 0..=n {
                    let x = p + (q - p) * (f64::from(k) / f64::from(n));
                    if in_wedge(x) {
                        best = best.min(c.distance(x));
                    }
                }
            }
            let width = f64::from(mesh.corner_width(t, corner));
            if !mesh.is_obstacle_vertex(ids[corner]) {
                assert!(width.is_infinite());
                continue;
            }
            // Sampling can only overestimate the true minimum, by at most half a step.
            assert!(
                width <= best + 1e-4,
                "{t:?}/{corner}: width {width} > sampled {best}"
            );
            assert!(
                width >= best - 0.05,
                "{t:?}/{corner}: width {width} << sampled {best}"
            );
            checked += 1;
        }
    }
    // A coverage floor, so the widths are checked on many corners. Measured: 360.
    assert!(checked > 300, "checked {checked}");
}
