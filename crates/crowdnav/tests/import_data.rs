//! Imports every third-party level file in the shared data directory (`../shared/data`
//! beside the repository; see its `MANIFEST.txt`) and checks that the walls enclose
//! exactly the walkable area: winding number 1 inside, 0 outside.
//!
//! The data is not part of the repository; without it the tests print a note and pass,
//! except in CI (`CI=true`), where they fail.

use crowdnav::geom::Segment;
use crowdnav::mesh::{parse_movingai_map, parse_polyanya_mesh, Walls};
use glam::Vec2;

mod common;
use common::{data_dir, files_with_extension};
use std::path::Path;

/// Map cells checked per map: every `CELL_STRIDE`-th cell in row-major order.
const CELL_STRIDE: usize = 7;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Winding numbers of a wall soup, with the walls bucketed into horizontal bands so that
/// a query only looks at the walls crossing its band.
struct WindingIndex {
    y_min: f32,
    band_height: f32,
    bands: Vec<Vec<Segment>>,
}

impl WindingIndex {
    fn new(walls: &Walls) -> Self {
        // Horizontal walls never count in the crossing rule below.
        let slanted: Vec<Segment> = walls
            .segments
            .iter()
            .copied()
            .filter(|s| s.a.y != s.b.y)
            .collect();
        let y_min = slanted.iter().map(|s| s.a.y.min(s.b.y)).fold(0.0, f32::min);
        let y_max = slanted.iter().map(|s| s.a.y.max(s.b.y)).fold(0.0, f32::max);
        let band_count = (slanted.len() / 2).clamp(1, 8192);
        let band_height = ((y_max - y_min) / band_count as f32).max(f32::MIN_POSITIVE);
        let mut index = Self {
            y_min,
            band_height,
            bands: vec![Vec::new(); band_count],
        };
        for s in slanted {
            let first = index.band(s.a.y.min(s.b.y));
            let last = index.band(s.a.y.max(s.b.y));
            for band in &mut index.bands[first..=last] {
                band.push(s);
            }
        }
        index
    }

    fn band(&self, y: f32) -> usize {
        let band = ((y - self.y_min) / self.band_height).floor().max(0.0) as usize;
        band.min(self.bands.len() - 1)
    }

    /// Winding number around `p` (Sunday's crossing rule; `p` must not lie on a wall).
    fn winding(&self, p: Vec2) -> i32 {
        self.bands[self.band(p.y)]
            .iter()
            .map(|s| {
                let cross = f64::from(s.b.x - s.a.x) * f64::from(p.y - s.a.y)
                    - f64::from(p.x - s.a.x) * f64::from(s.b.y - s.a.y);
                if s.a.y <= p.y && p.y < s.b.y && cross > 0.0 {
                    1
                } else if s.b.y <= p.y && p.y < s.a.y && cross < 0.0 {
                    -1
                } else {
                    0
                }
            })
            .sum()
    }
}

/// A polygon of a mesh file, re-read here independently of the importer.
struct Polygon {
    traversable: bool,
    corners: Vec<Vec2>,
}

/// Minimal reader for well-formed v2/v3 meshes: the polygons only.
fn polygons_of(text: &str) -> Vec<Polygon> {
    let mut tokens = text.split_whitespace();
    let mut next = || tokens.next().expect("mesh token");
    let number = |t: &str| t.parse::<f32>().expect("mesh number");
    let count = |t: &str| t.parse::<usize>().expect("mesh count");
    assert_eq!(next(), "mesh");
    let version = next();
    let vertex_count = count(next());
    let polygon_count = count(next());
    let mut vertices = Vec::with_capacity(vertex_count);
    for _ in 0..vertex_count {
        vertices.push(Vec2::new(number(next()), number(next())));
        if version == "2" {
            for _ in 0..count(next()) {
                next();
            }
        }
    }
    let mut polygons = Vec::with_capacity(polygon_count);
    for _ in 0..polygon_count {
        let traversable = version == "2" || next() == "1";
        let n = count(next());
        let first_id = if version == "2" { 0 } else { 1 };
        let corners = (0..n).map(|_| vertices[count(next()) - first_id]).collect();
        for _ in 0..n {
            next();
        }
        polygons.push(Polygon {
            traversable,
            corners,
        });
    }
    polygons
}

#[test]
fn every_polyanya_mesh_imports_with_polygon_insides_walkable() {
    let Some(data) = data_dir() else {
        return;
    };
    let mut imported = 0;
    for dir in ["polyanya-v2", "polyanya-v3", "polyanya-cpp-tests"] {
        let files = files_with_extension(&data.join(dir), "mesh", false);
        assert!(!files.is_empty(), "no .mesh files in {dir}");
        for path in files {
            let text = read(&path);
            let walls =
                parse_polyanya_mesh(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!walls.segments.is_empty(), "{}: no walls", path.display());
            eprintln!("{}: {} walls", path.display(), walls.segments.len());
            let index = WindingIndex::new(&walls);
            for (i, polygon) in polygons_of(&text).iter().enumerate() {
                let centroid =
                    polygon.corners.iter().copied().sum::<Vec2>() / polygon.corners.len() as f32;
                let expected = i32::from(polygon.traversable);
                assert_eq!(
                    index.winding(centroid),
                    expected,
                    "{}: polygon {i} centroid {centroid}",
                    path.display()
                );
            }
            imported += 1;
        }
    }
    eprintln!("imported {imported} .mesh files");
}

#[test]
fn every_movingai_map_imports_with_free_cells_walkable() {
    let Some(data) = data_dir() else {
        return;
    };
    let files = files_with_extension(&data.join("movingai"), "map", true);
    assert!(!files.is_empty(), "no .map files under movingai");
    let mut checked_cells = 0;
    for path in &files {
        let text = read(path);
        let walls = parse_movingai_map(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!walls.segments.is_empty(), "{}: no walls", path.display());
        eprintln!("{}: {} walls", path.display(), walls.segments.len());
        let index = WindingIndex::new(&walls);
        // The rows are the lines after `map`; the importer has already checked their shape.
        let rows: Vec<&[u8]> = text
            .lines()
            .skip_while(|line| line.trim() != "map")
            .skip(1)
            .map(|line| line.trim_end().as_bytes())
            .filter(|row| !row.is_empty())
            .collect();
        let width = rows.first().map_or(0, |row| row.len());
        for cell in (0..rows.len() * width).step_by(CELL_STRIDE) {
            let (column, row) = (cell % width, cell / width);
            let free = !matches!(rows[row][column], b'S' | b'W' | b'T' | b'@' | b'O');
            let centre = Vec2::new(column as f32 + 0.5, row as f32 + 0.5);
            assert_eq!(
                index.winding(centre),
                i32::from(free),
                "{}: cell ({column}, {row})",
                path.display()
            );
            checked_cells += 1;
        }
    }
    eprintln!(
        "imported {} .map files, checked {checked_cells} cells",
        files.len()
    );
}

/// The walls sorted by their coordinates, for comparing wall sets.
fn sorted_walls(walls: Walls) -> Vec<Segment> {
    let mut segments = walls.segments;
    segments.sort_by(|s, t| {
        let key = |s: &Segment| [s.a.x, s.a.y, s.b.x, s.b.y];
        key(s)
            .iter()
            .zip(key(t))
            .map(|(a, b)| a.total_cmp(&b))
            .find(|order| order.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    segments
}

#[test]
fn grid_derived_meshes_have_the_same_walls_as_their_maps() {
    let Some(data) = data_dir() else {
        return;
    };
    let pairs = [
        ("movingai/dao/arena.map", "polyanya-v2/arena.mesh"),
        ("movingai/dao/arena.map", "polyanya-v2/arena-merged.mesh"),
        ("movingai/sc1/Aurora.map", "polyanya-v2/aurora.mesh"),
        ("movingai/sc1/Aurora.map", "polyanya-v2/aurora-merged.mesh"),
    ];
    for (map, mesh) in pairs {
        let from_map = parse_movingai_map(&read(&data.join(map))).expect(map);
        let from_mesh = parse_polyanya_mesh(&read(&data.join(mesh))).expect(mesh);
        assert_eq!(
            sorted_walls(from_map),
            sorted_walls(from_mesh),
            "{map} vs {mesh}"
        );
    }
}
