//! Polyanya navigation meshes (`.mesh`, versions 2 and 3).
//!
//! Both versions are whitespace-insensitive streams of numbers after a `mesh` header and
//! a version number, so the reader works on tokens and remembers the line of each one.
//! Blank lines, tabs and `//` comments (as in the v3 format description) are skipped.

use super::{snippet, ImportError};
use crate::geom::Segment;
use crate::mesh::Walls;
use glam::Vec2;
use std::str::{Lines, SplitWhitespace};

/// Parses a Polyanya mesh (version 2 or 3, read from the header) into walls.
///
/// - **Version 2** (`mesh` / `2` / `V P`, vertex records `x y n p_1..p_n`, polygon
///   records `n v_1..v_n p_1..p_n` with 0-based indices): every polygon edge whose
///   neighbour is `-1` becomes a wall.
/// - **Version 3** (`mesh` / `3` / `V F`, vertex records `x y` with 1-based ids, face
///   records `trav n v_1..v_n k_1..k_n`): only faces with `trav = 1` are walkable; each
///   of their edges is a wall unless its neighbour `k` is positive and names a face with
///   `trav = 1`.
///
/// In both versions the neighbour number `j` lies across the edge `(v_{j-1}, v_j)`
/// (wrapping). Walls are directed with the polygon's inside on their left; polygons
/// listed clockwise are turned around first. Zero-length edges are skipped.
///
/// # Errors
/// An [`ImportError`] naming the line of the first problem: a missing or wrong header,
/// an unsupported version, a token that is not a number, a NaN or infinite coordinate,
/// a negative count (or a polygon with fewer than three vertices), an index out of
/// range, a truncated file, or data after the last record.
///
/// # Example
/// ```
/// use crowdnav::mesh::parse_polyanya_mesh;
/// // The two-triangle square from the format description.
/// let text = "mesh\n2\n4 2\n0 0 2 0 -1\n1.5 0 3 0 1 -1\n1.5 1.5 2 1 -1\n0 1.5 3 -1 1 0\n\
///             3 0 1 3 -1 -1 1\n3 1 2 3 0 -1 -1\n";
/// let walls = parse_polyanya_mesh(text)?;
/// assert_eq!(walls.segments.len(), 4);
/// # Ok::<(), crowdnav::mesh::ImportError>(())
/// ```
pub fn parse_polyanya_mesh(text: &str) -> Result<Walls, ImportError> {
    let mut tokens = Tokens::new(text);
    let (line, header) = tokens.next("the `mesh` header")?;
    if header != "mesh" {
        return Err(ImportError::BadHeader {
            line,
            expected: "the `mesh` header",
            found: snippet(header),
        });
    }
    let (line, version) = tokens.next("the mesh version")?;
    let walls = match version {
        "2" => parse_v2(&mut tokens, text.len())?,
        "3" => parse_v3(&mut tokens, text.len())?,
        _ => {
            return Err(ImportError::UnsupportedVersion {
                line,
                version: snippet(version),
            })
        }
    };
    tokens.finish()?;
    Ok(walls)
}

/// Version 2: vertices with their polygon fans, then polygons with 0-based indices.
fn parse_v2(tokens: &mut Tokens<'_>, text_len: usize) -> Result<Walls, ImportError> {
    let vertex_count = tokens.count("the vertex count", 0)?;
    let polygon_count = tokens.count("the polygon count", 0)?;
    let max_polygon = max_index(0, polygon_count);

    let mut vertices = Vec::with_capacity(vertex_count.min(text_len));
    for _ in 0..vertex_count {
        let x = tokens.coordinate("a vertex x coordinate")?;
        let y = tokens.coordinate("a vertex y coordinate")?;
        let fan = tokens.count("a vertex's polygon count", 0)?;
        for _ in 0..fan {
            tokens.index("a vertex's neighbouring polygon", -1, max_polygon)?;
        }
        vertices.push(Vec2::new(x, y));
    }

    let max_vertex = max_index(0, vertices.len());
    let mut walls = Walls::default();
    let mut corners = Vec::new();
    let mut is_wall = Vec::new();
    for _ in 0..polygon_count {
        let n = tokens.count("a polygon's vertex count", 3)?;
        corners.clear();
        is_wall.clear();
        for _ in 0..n {
            let index = tokens.index("a polygon's vertex", 0, max_vertex)?;
            corners.push(vertex(&vertices, index, 0));
        }
        for _ in 0..n {
            let neighbour = tokens.index("a polygon's neighbour", -1, max_polygon)?;
            is_wall.push(neighbour == -1);
        }
        push_walls(&mut walls, &corners, &is_wall);
    }
    Ok(walls)
}

/// One face of a version 3 mesh, its vertices and neighbours stored in shared arrays.
struct Face {
    traversable: bool,
    start: usize,
    len: usize,
}

/// Version 3: vertices with 1-based ids, then faces with a traversable flag.
fn parse_v3(tokens: &mut Tokens<'_>, text_len: usize) -> Result<Walls, ImportError> {
    let vertex_count = tokens.count("the vertex count", 0)?;
    let face_count = tokens.count("the face count", 0)?;

    let mut vertices = Vec::with_capacity(vertex_count.min(text_len));
    for _ in 0..vertex_count {
        let x = tokens.coordinate("a vertex x coordinate")?;
        let y = tokens.coordinate("a vertex y coordinate")?;
        vertices.push(Vec2::new(x, y));
    }

    // Whether a neighbour is traversable is only known once every face is read.
    let max_vertex = max_index(1, vertices.len());
    let max_face = max_index(1, face_count);
    let mut faces = Vec::with_capacity(face_count.min(text_len));
    let mut corners = Vec::new();
    let mut neighbours = Vec::new();
    for _ in 0..face_count {
        let (line, flag) = tokens.next("a face's traversable flag")?;
        let traversable = match flag {
            "0" => false,
            "1" => true,
            _ => {
                return Err(ImportError::BadNumber {
                    line,
                    token: snippet(flag),
                    expected: "a face's traversable flag (0 or 1)",
                })
            }
        };
        let n = tokens.count("a face's vertex count", 3)?;
        let start = corners.len();
        for _ in 0..n {
            let id = tokens.index("a face's vertex id", 1, max_vertex)?;
            corners.push(vertex(&vertices, id, 1));
        }
        for _ in 0..n {
            neighbours.push(tokens.index("a face's neighbour", -max_face, max_face)?);
        }
        faces.push(Face {
            traversable,
            start,
            len: n,
        });
    }

    let face_is_traversable = |k: i64| {
        usize::try_from(k - 1)
            .ok()
            .and_then(|i| faces.get(i))
            .is_some_and(|f| f.traversable)
    };
    let mut walls = Walls::default();
    let mut is_wall = Vec::new();
    for face in faces.iter().filter(|f| f.traversable) {
        let range = face.start..face.start + face.len;
        let (Some(face_corners), Some(face_neighbours)) =
            (corners.get(range.clone()), neighbours.get(range))
        else {
            continue;
        };
        is_wall.clear();
        is_wall.extend(face_neighbours.iter().map(|&k| !face_is_traversable(k)));
        push_walls(&mut walls, face_corners, &is_wall);
    }
    Ok(walls)
}

/// Largest valid index when `count` items are numbered from `first`.
fn max_index(first: i64, count: usize) -> i64 {
    first.saturating_add(i64::try_from(count).unwrap_or(i64::MAX)) - 1
}

/// The vertex with index `index` in a list numbered from `first` (already range-checked;
/// a miss gives the origin rather than a panic).
fn vertex(vertices: &[Vec2], index: i64, first: i64) -> Vec2 {
    usize::try_from(index - first)
        .ok()
        .and_then(|i| vertices.get(i).copied())
        .unwrap_or(Vec2::ZERO)
}

/// Appends the polygon's wall edges: edge `j` runs from corner `j - 1` to corner `j`
/// (wrapping) and is a wall when `is_wall[j]`. Clockwise polygons are walked backwards
/// so that the inside is on the left of every wall.
fn push_walls(walls: &mut Walls, corners: &[Vec2], is_wall: &[bool]) {
    let clockwise = signed_area_doubled(corners) < 0.0;
    let Some(&last) = corners.last() else {
        return;
    };
    let mut previous = last;
    for (&corner, &wall) in corners.iter().zip(is_wall) {
        if wall && previous != corner {
            let segment = Segment::new(previous, corner);
            walls.segments.push(if clockwise {
                segment.reversed()
            } else {
                segment
            });
        }
        previous = corner;
    }
}

/// Twice the signed area of the polygon (shoelace formula, in `f64`): positive when its
/// corners run counter-clockwise.
fn signed_area_doubled(corners: &[Vec2]) -> f64 {
    let Some(&last) = corners.last() else {
        return 0.0;
    };
    let mut previous = last.as_dvec2();
    corners
        .iter()
        .map(|corner| {
            let corner = corner.as_dvec2();
            let term = previous.perp_dot(corner);
            previous = corner;
            term
        })
        .sum()
}

/// Whitespace-separated tokens, each with its 1-based line number.
struct Tokens<'a> {
    lines: Lines<'a>,
    words: SplitWhitespace<'a>,
    /// Line of the words being read (0 before the first line).
    line: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            lines: text.lines(),
            words: "".split_whitespace(),
            line: 0,
        }
    }

    /// The next token, or [`ImportError::UnexpectedEnd`] at the last line.
    fn next(&mut self, expected: &'static str) -> Result<(usize, &'a str), ImportError> {
        loop {
            if let Some(word) = self.words.next() {
                return Ok((self.line, word));
            }
            let Some(line) = self.lines.next() else {
                return Err(ImportError::UnexpectedEnd {
                    line: self.line.max(1),
                    expected,
                });
            };
            self.line += 1;
            let without_comment = line.split("//").next().unwrap_or("");
            self.words = without_comment.split_whitespace();
        }
    }

    fn integer(&mut self, expected: &'static str) -> Result<(usize, i64), ImportError> {
        let (line, token) = self.next(expected)?;
        let value = token.parse().map_err(|_| ImportError::BadNumber {
            line,
            token: snippet(token),
            expected,
        })?;
        Ok((line, value))
    }

    /// A count of at least `min`.
    fn count(&mut self, what: &'static str, min: i64) -> Result<usize, ImportError> {
        let (line, count) = self.integer(what)?;
        let bad = || ImportError::BadCount {
            line,
            what,
            count,
            min,
        };
        if count < min {
            return Err(bad());
        }
        usize::try_from(count).map_err(|_| bad())
    }

    /// An index in `min..=max`.
    fn index(&mut self, what: &'static str, min: i64, max: i64) -> Result<i64, ImportError> {
        let (line, index) = self.integer(what)?;
        if index < min || index > max {
            return Err(ImportError::BadIndex {
                line,
                what,
                index,
                min,
                max,
            });
        }
        Ok(index)
    }

    /// A finite coordinate.
    fn coordinate(&mut self, what: &'static str) -> Result<f32, ImportError> {
        let (line, token) = self.next(what)?;
        let value: f32 = token.parse().map_err(|_| ImportError::BadNumber {
            line,
            token: snippet(token),
            expected: what,
        })?;
        if !value.is_finite() {
            return Err(ImportError::NonFinite {
                line,
                token: snippet(token),
                what,
            });
        }
        Ok(value)
    }

    /// Checks that only whitespace (and comments) remain.
    fn finish(&mut self) -> Result<(), ImportError> {
        match self.next("") {
            Ok((line, token)) => Err(ImportError::TrailingData {
                line,
                found: snippet(token),
            }),
            Err(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_clean, is_left, seg, sorted, winding_number};
    use super::*;

    /// The two-triangle 1.5 x 1.5 square from the format description.
    const SQUARE_V2: &str = "mesh\n2\n4 2\n0.0 0.0 2 0 -1\n1.5 0.0 3 0 1 -1\n1.5 1.5 2 1 -1\n\
                             0.0 1.5 3 -1 1 0\n3 0 1 3 -1 -1 1\n3 1 2 3 0 -1 -1\n";

    /// The v3 example from `meshes/v3/format.txt`, comments and all: a 10 x 10 square
    /// cut into four triangles around (5, 5); face 1 (the bottom one, y = 0 side) is not
    /// traversable. The faces are listed clockwise in math orientation.
    const FAN_V3: &str = "mesh\n3\n5 4  // 5 vertices 4 faces\n0 0   // vertex 1\n\
                          0 10  // vertex 2\n10 10 // vertex 3\n10 0  // vertex 4\n5 5   // vertex 5\n\
                          0 3   4 1 5   -4 0 -2 // face 1, non-traversable\n\
                          1 3   1 2 5   -1 0 3  // face 2\n\
                          1 3   2 3 5   2 0 4   // face 3\n\
                          1 3   3 4 5   3 0 -1  // face 4\n";

    fn parse(text: &str) -> Walls {
        parse_polyanya_mesh(text).expect("test mesh parses")
    }

    #[test]
    fn two_triangle_square_has_four_walls_around_the_inside() {
        let walls = parse(SQUARE_V2);
        let expected = vec![
            seg(0.0, 0.0, 1.5, 0.0),
            seg(1.5, 0.0, 1.5, 1.5),
            seg(1.5, 1.5, 0.0, 1.5),
            seg(0.0, 1.5, 0.0, 0.0),
        ];
        assert_eq!(sorted(walls.segments.clone()), sorted(expected));
        let centroid = Vec2::splat(0.75);
        for wall in &walls.segments {
            assert!(
                is_left(wall, centroid),
                "{wall:?} has the inside on its right"
            );
        }
        assert_eq!(winding_number(&walls, centroid), 1);
        assert_eq!(winding_number(&walls, Vec2::new(2.0, 0.75)), 0);
    }

    #[test]
    fn clockwise_polygons_are_turned_around() {
        // One unit square listed clockwise (0, 3, 2, 1), every edge a wall.
        let text = "mesh 2\n4 1\n0 0 1 0\n1 0 1 0\n1 1 1 0\n0 1 1 0\n4 0 3 2 1 -1 -1 -1 -1\n";
        let walls = parse(text);
        assert_eq!(walls.segments.len(), 4);
        for wall in &walls.segments {
            assert!(is_left(wall, Vec2::splat(0.5)), "{wall:?}");
        }
    }

    #[test]
    fn blank_lines_tabs_and_comments_are_whitespace() {
        let spaced = SQUARE_V2.replace(
            "\n3 0 1 3 -1 -1 1",
            "\n\n\t\n3\t0 1\n3 -1 -1 1 // first polygon",
        );
        let spaced = spaced.replacen("4 2\n", "4   2\r\n\n", 1);
        assert_eq!(parse(&spaced), parse(SQUARE_V2));
    }

    #[test]
    fn zero_length_edges_are_skipped() {
        // A triangle with a repeated corner (vertex 3 sits on vertex 2).
        let text = "mesh\n2\n4 1\n0 0 1 0\n2 0 1 0\n0 2 1 0\n0 2 1 0\n4 0 1 2 3 -1 -1 -1 -1\n";
        let walls = parse(text);
        assert_eq!(walls.segments.len(), 3);
        assert!(walls.segments.iter().all(|s| s.a != s.b));
        assert_eq!(winding_number(&walls, Vec2::new(0.5, 0.5)), 1);
    }

    #[test]
    fn v3_edge_shared_with_a_non_traversable_face_is_a_wall() {
        let walls = parse(FAN_V3);
        // The square minus the bottom triangle (0,0)-(10,0)-(5,5), counter-clockwise.
        let expected = vec![
            seg(0.0, 0.0, 5.0, 5.0),
            seg(5.0, 5.0, 10.0, 0.0),
            seg(10.0, 0.0, 10.0, 10.0),
            seg(10.0, 10.0, 0.0, 10.0),
            seg(0.0, 10.0, 0.0, 0.0),
        ];
        assert_eq!(sorted(walls.segments.clone()), sorted(expected));
        assert_eq!(winding_number(&walls, Vec2::new(5.0, 8.0)), 1);
        assert_eq!(winding_number(&walls, Vec2::new(5.0, 1.0)), 0);
    }

    #[test]
    fn v3_positive_neighbour_that_is_not_traversable_is_still_a_wall() {
        // Same mesh, but faces 2 and 4 name the non-traversable face 1 with k > 0.
        let text = FAN_V3
            .replace("1 2 5   -1 0 3", "1 2 5   1 0 3")
            .replace("3 4 5   3 0 -1", "3 4 5   3 0 1");
        assert_eq!(
            sorted(parse(&text).segments),
            sorted(parse(FAN_V3).segments)
        );
    }

    #[test]
    fn v3_counter_clockwise_faces_give_the_same_walls() {
        let ccw = "mesh\n3\n4 2\n0 0\n1 0\n1 1\n0 1\n1 3 1 2 3 2 0 0\n1 3 1 3 4 0 1 0\n";
        let walls = parse(ccw);
        assert_eq!(walls.segments.len(), 4);
        for wall in &walls.segments {
            assert!(is_left(wall, Vec2::splat(0.5)), "{wall:?}");
        }
        assert_eq!(winding_number(&walls, Vec2::new(0.3, 0.6)), 1);
    }

    #[test]
    fn truncated_files_report_the_last_line() {
        let cut = "mesh\n2\n4 2\n0.0 0.0 2 0 -1\n1.5 0.0";
        assert_eq!(
            parse_polyanya_mesh(cut),
            Err(ImportError::UnexpectedEnd {
                line: 5,
                expected: "a vertex's polygon count"
            })
        );
        let no_polygons = "mesh\n2\n4 2\n0.0 0.0 2 0 -1\n1.5 0.0 3 0 1 -1\n1.5 1.5 2 1 -1\n\
                           0.0 1.5 3 -1 1 0\n";
        assert_eq!(
            parse_polyanya_mesh(no_polygons),
            Err(ImportError::UnexpectedEnd {
                line: 7,
                expected: "a polygon's vertex count"
            })
        );
        assert!(matches!(
            parse_polyanya_mesh(""),
            Err(ImportError::UnexpectedEnd { line: 1, .. })
        ));
        assert!(matches!(
            parse_polyanya_mesh("mesh\n3\n5 4\n0 0\n0 10\n"),
            Err(ImportError::UnexpectedEnd { line: 5, .. })
        ));
    }

    #[test]
    fn garbage_token_names_its_line() {
        let text = SQUARE_V2.replace("1.5 1.5 2", "1.5 x1.5 2");
        assert_eq!(
            parse_polyanya_mesh(&text),
            Err(ImportError::BadNumber {
                line: 6,
                token: "x1.5".into(),
                expected: "a vertex y coordinate"
            })
        );
        let fractional_index = SQUARE_V2.replace("3 1 2 3 0", "3 1 2.0 3 0");
        assert!(matches!(
            parse_polyanya_mesh(&fractional_index),
            Err(ImportError::BadNumber { line: 9, .. })
        ));
    }

    #[test]
    fn nan_and_infinite_coordinates_are_rejected() {
        for bad in ["NaN", "inf", "-infinity", "1e39"] {
            let text = SQUARE_V2.replacen("1.5 0.0", &format!("1.5 {bad}"), 1);
            assert_eq!(
                parse_polyanya_mesh(&text),
                Err(ImportError::NonFinite {
                    line: 5,
                    token: bad.into(),
                    what: "a vertex y coordinate"
                })
            );
        }
        let v3 = FAN_V3.replace("10 0  //", "10 nan //");
        assert!(matches!(
            parse_polyanya_mesh(&v3),
            Err(ImportError::NonFinite { line: 7, .. })
        ));
    }

    #[test]
    fn indices_out_of_range_are_rejected() {
        let vertex = SQUARE_V2.replace("3 1 2 3 0", "3 1 4 3 0");
        assert_eq!(
            parse_polyanya_mesh(&vertex),
            Err(ImportError::BadIndex {
                line: 9,
                what: "a polygon's vertex",
                index: 4,
                min: 0,
                max: 3
            })
        );
        let neighbour = SQUARE_V2.replace("3 0 1 3 -1 -1 1", "3 0 1 3 -1 -2 1");
        assert!(matches!(
            parse_polyanya_mesh(&neighbour),
            Err(ImportError::BadIndex {
                line: 8,
                index: -2,
                ..
            })
        ));
        let v3_neighbour = FAN_V3.replace("1 2 5   -1 0 3", "1 2 5   -5 0 3");
        assert!(matches!(
            parse_polyanya_mesh(&v3_neighbour),
            Err(ImportError::BadIndex {
                line: 10,
                index: -5,
                min: -4,
                max: 4,
                ..
            })
        ));
        let v3_vertex = FAN_V3.replace("1 2 5   -1", "0 2 5   -1");
        assert!(matches!(
            parse_polyanya_mesh(&v3_vertex),
            Err(ImportError::BadIndex {
                line: 10,
                index: 0,
                min: 1,
                ..
            })
        ));
    }

    #[test]
    fn negative_and_too_small_counts_are_rejected() {
        assert_eq!(
            parse_polyanya_mesh("mesh\n2\n-4 2\n"),
            Err(ImportError::BadCount {
                line: 3,
                what: "the vertex count",
                count: -4,
                min: 0
            })
        );
        let two_gon = SQUARE_V2.replace("3 1 2 3 0 -1 -1", "2 1 2 0 -1");
        assert!(matches!(
            parse_polyanya_mesh(&two_gon),
            Err(ImportError::BadCount {
                line: 9,
                count: 2,
                ..
            })
        ));
        let flag = FAN_V3.replace("1 3   2 3 5", "2 3   2 3 5");
        assert!(matches!(
            parse_polyanya_mesh(&flag),
            Err(ImportError::BadNumber { line: 11, .. })
        ));
    }

    #[test]
    fn wrong_headers_and_versions_are_rejected() {
        assert_eq!(
            parse_polyanya_mesh("type octile\n"),
            Err(ImportError::BadHeader {
                line: 1,
                expected: "the `mesh` header",
                found: "type".into()
            })
        );
        assert_eq!(
            parse_polyanya_mesh("\nmesh\n1\n"),
            Err(ImportError::UnsupportedVersion {
                line: 3,
                version: "1".into()
            })
        );
    }

    #[test]
    fn data_after_the_last_polygon_is_rejected() {
        let text = format!("{SQUARE_V2}\n7\n");
        assert_eq!(
            parse_polyanya_mesh(&text),
            Err(ImportError::TrailingData {
                line: 11,
                found: "7".into()
            })
        );
    }

    #[test]
    fn huge_counts_fail_without_allocating() {
        let text = "mesh\n2\n9223372036854775807 9223372036854775807\n0 0 0\n";
        assert!(matches!(
            parse_polyanya_mesh(text),
            Err(ImportError::UnexpectedEnd { line: 4, .. })
        ));
    }

    #[test]
    fn every_prefix_and_mangled_token_fails_cleanly() {
        for text in [SQUARE_V2, FAN_V3] {
            for end in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
                assert_clean(parse_polyanya_mesh(&text[..end]), &text[..end]);
            }
            let tokens: Vec<&str> = text.split_whitespace().collect();
            for i in 0..tokens.len() {
                for replacement in ["-1", "0", "99", "-99", "nan", "x", "1e30"] {
                    let mut mangled = tokens.clone();
                    mangled[i] = replacement;
                    let joined = mangled.join(" ");
                    assert_clean(parse_polyanya_mesh(&joined), &joined);
                }
            }
        }
    }
}
