//! MovingAI grid maps (`.map`).

use super::{snippet, ImportError};
use crate::geom::Segment;
use crate::mesh::Walls;
use glam::Vec2;

/// Parses a MovingAI grid map into walls around its free cells.
///
/// The header (`type ...`, `height H`, `width W`, in any order, blank lines allowed)
/// ends with a `map` line, followed by `H` rows of `W` characters. Cell `(c, r)` (column
/// `c`, row `r`) is the square `[c, c+1] x [r, r+1]`, with no axis flip. As in Polyanya's
/// `gridmap2poly`, `S`, `W`, `T`, `@` and `O` are obstacles and every other character is
/// free (see [`GridRule`] and [`parse_movingai_map_with`] for MovingAI's own rule);
/// everything outside the map is blocked.
///
/// The walls are the edges between free and blocked cells, merged into maximal straight
/// runs that keep the free side on the same hand (so runs stop at checkerboard pinch
/// points), directed with the free side on the left: the outer boundary of a free region
/// runs counter-clockwise, holes clockwise. `\r\n` line endings and trailing whitespace
/// are accepted; lines after the last row must be blank.
///
/// # Errors
/// An [`ImportError`] naming the line of the first problem: an unknown, malformed or
/// repeated header line, a missing `height`, `width` or `map` line, a row whose length
/// is not `W`, fewer than `H` rows, or data after the last row.
///
/// # Example
/// ```
/// use crowdnav::mesh::parse_movingai_map;
/// let walls = parse_movingai_map("type octile\nheight 1\nwidth 3\nmap\n...\n")?;
/// assert_eq!(walls.segments.len(), 4); // one rectangle
/// # Ok::<(), crowdnav::mesh::ImportError>(())
/// ```
pub fn parse_movingai_map(text: &str) -> Result<Walls, ImportError> {
    parse_movingai_map_with(text, GridRule::Polyanya)
}

/// Which grid characters are obstacles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GridRule {
    /// Polyanya's `gridmap2poly`: `S`, `W`, `T`, `@` and `O` are obstacles — the rule
    /// the published Polyanya meshes and answers use.
    #[default]
    Polyanya,
    /// MovingAI's scenario generator: only `T`, `@` and `O` are obstacles; swamp `S`
    /// is passable, and so is water `W` (its "only from water" restriction cannot be
    /// expressed as geometry, so water counts as free).
    MovingAi,
}

impl GridRule {
    fn is_obstacle(self, cell: char) -> bool {
        match self {
            GridRule::Polyanya => matches!(cell, 'S' | 'W' | 'T' | '@' | 'O'),
            GridRule::MovingAi => matches!(cell, 'T' | '@' | 'O'),
        }
    }
}

/// [`parse_movingai_map`] with a choice of which characters are obstacles.
///
/// # Errors
/// As [`parse_movingai_map`].
pub fn parse_movingai_map_with(text: &str, rule: GridRule) -> Result<Walls, ImportError> {
    let mut lines = text.lines().zip(1..);
    let (height, width) = parse_header(&mut lines)?;

    let mut blocked = Vec::with_capacity(height.saturating_mul(width).min(text.len()));
    let mut last_line = 0;
    for row in 0..height {
        let Some((line, number)) = lines.next() else {
            return Err(ImportError::MissingMapRows {
                line: last_line.max(1),
                expected: height,
                found: row,
            });
        };
        last_line = number;
        let cells = line.trim_end();
        let before = blocked.len();
        blocked.extend(cells.chars().map(|c| rule.is_obstacle(c)));
        let found = blocked.len() - before;
        if found != width {
            return Err(ImportError::BadMapRow {
                line: number,
                expected_width: width,
                found,
            });
        }
    }
    if let Some((line, number)) = lines.find(|(line, _)| !line.trim().is_empty()) {
        return Err(ImportError::TrailingData {
            line: number,
            found: snippet(line.trim()),
        });
    }

    if width == 0 || height == 0 {
        return Ok(Walls::default());
    }
    let grid = Grid {
        width,
        height,
        blocked,
    };
    Ok(grid.walls())
}

/// Reads header lines up to and including `map`; returns `(height, width)`.
fn parse_header<'a>(
    lines: &mut impl Iterator<Item = (&'a str, usize)>,
) -> Result<(usize, usize), ImportError> {
    const EXPECTED: &str = "`type`, `height`, `width` or `map`";
    let mut seen_type = false;
    let mut height = None;
    let mut width = None;
    let mut last_line = 0;
    for (line, number) in lines {
        last_line = number;
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else {
            continue;
        };
        let value = words.next();
        let bad_line = |expected| ImportError::BadHeader {
            line: number,
            expected,
            found: snippet(line.trim()),
        };
        if words.next().is_some() {
            return Err(bad_line(EXPECTED));
        }
        let (name, slot): (&'static str, Option<&mut Option<usize>>) = match key {
            "map" if value.is_none() => {
                let missing = |key| ImportError::MissingHeader { line: number, key };
                let height = height.ok_or_else(|| missing("height"))?;
                let width = width.ok_or_else(|| missing("width"))?;
                return Ok((height, width));
            }
            "type" => ("type", None),
            "height" => ("height", Some(&mut height)),
            "width" => ("width", Some(&mut width)),
            _ => return Err(bad_line(EXPECTED)),
        };
        let Some(value) = value else {
            return Err(bad_line("a header key followed by its value"));
        };
        let duplicate = ImportError::DuplicateHeader {
            line: number,
            key: name,
        };
        match slot {
            None if seen_type => return Err(duplicate),
            None => seen_type = true,
            Some(Some(_)) => return Err(duplicate),
            Some(slot) => *slot = Some(parse_size(value, number, name)?),
        }
    }
    Err(ImportError::UnexpectedEnd {
        line: last_line.max(1),
        expected: "the `map` line",
    })
}

/// A map dimension: a non-negative integer.
fn parse_size(token: &str, line: usize, what: &'static str) -> Result<usize, ImportError> {
    let value: i64 = token.parse().map_err(|_| ImportError::BadNumber {
        line,
        token: snippet(token),
        expected: "a non-negative integer size",
    })?;
    let bad = || ImportError::BadCount {
        line,
        what,
        count: value,
        min: 0,
    };
    if value < 0 {
        return Err(bad());
    }
    usize::try_from(value).map_err(|_| bad())
}

/// The map's cells, row by row; `true` = blocked.
struct Grid {
    width: usize,
    height: usize,
    blocked: Vec<bool>,
}

/// Which side of a grid line the free cell is on, seen along the line's direction of
/// increasing coordinate (x for horizontal lines, y for vertical ones).
#[derive(Clone, Copy, PartialEq)]
enum Side {
    /// The free cell has the larger coordinate across the line.
    Above,
    /// The free cell has the smaller coordinate across the line.
    Below,
}

impl Grid {
    /// Whether cell `(column, row)` is free; outside the map is blocked.
    fn is_free(&self, column: usize, row: Option<usize>) -> bool {
        let Some(row) = row else {
            return false;
        };
        if column >= self.width || row >= self.height {
            return false;
        }
        row.checked_mul(self.width)
            .and_then(|i| i.checked_add(column))
            .and_then(|i| self.blocked.get(i))
            .is_some_and(|&blocked| !blocked)
    }

    /// Which side of the edge between `low` and `high` is free, if exactly one is.
    fn side(low_free: bool, high_free: bool) -> Option<Side> {
        match (low_free, high_free) {
            (false, true) => Some(Side::Above),
            (true, false) => Some(Side::Below),
            _ => None,
        }
    }

    fn walls(&self) -> Walls {
        let mut walls = Walls::default();
        // Horizontal grid lines y = row: free above means the wall runs towards +x.
        for row in 0..=self.height {
            let sides = (0..self.width).map(|column| {
                let below = self.is_free(column, row.checked_sub(1));
                let above = self.is_free(column, Some(row));
                Self::side(below, above)
            });
            let y = row as f32;
            for_each_run(sides, |side, start, end| {
                let (from, to) = (Vec2::new(start as f32, y), Vec2::new(end as f32, y));
                walls.segments.push(match side {
                    Side::Above => Segment::new(from, to),
                    Side::Below => Segment::new(to, from),
                });
            });
        }
        // Vertical grid lines x = column: free on the right (+x) means the wall runs
        // towards -y.
        for column in 0..=self.width {
            let sides = (0..self.height).map(|row| {
                let left = column
                    .checked_sub(1)
                    .is_some_and(|c| self.is_free(c, Some(row)));
                let right = self.is_free(column, Some(row));
                Self::side(left, right)
            });
            let x = column as f32;
            for_each_run(sides, |side, start, end| {
                let (from, to) = (Vec2::new(x, start as f32), Vec2::new(x, end as f32));
                walls.segments.push(match side {
                    Side::Above => Segment::new(to, from),
                    Side::Below => Segment::new(from, to),
                });
            });
        }
        walls
    }
}

/// Calls `emit(side, start, end)` for every maximal run `start..end` of equal `Some`
/// values in `sides`.
fn for_each_run(
    sides: impl Iterator<Item = Option<Side>>,
    mut emit: impl FnMut(Side, usize, usize),
) {
    let mut run: Option<(Side, usize)> = None;
    let mut end = 0;
    for (i, side) in sides.enumerate() {
        end = i + 1;
        match (run, side) {
            (Some((current, _)), Some(side)) if current == side => {}
            _ => {
                if let Some((current, start)) = run {
                    emit(current, start, i);
                }
                run = side.map(|side| (side, i));
            }
        }
    }
    if let Some((current, start)) = run {
        emit(current, start, end);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_clean, seg, sorted, winding_number};
    use super::*;

    #[test]
    fn swamp_is_an_obstacle_for_polyanya_and_free_for_movingai() {
        let text = map(&["..S..", "..T.."]);
        let area = |rule| {
            let walls = parse_movingai_map_with(&text, rule).expect("valid");
            // Shoelace over the directed walls: the free area.
            walls
                .segments
                .iter()
                .map(|s| f64::from(s.a.perp_dot(s.b)) * 0.5)
                .sum::<f64>()
        };
        assert_eq!(area(GridRule::Polyanya), 8.0);
        assert_eq!(area(GridRule::MovingAi), 9.0);
    }

    fn map(rows: &[&str]) -> String {
        let width = rows.first().map_or(0, |r| r.len());
        format!(
            "type octile\nheight {}\nwidth {width}\nmap\n{}\n",
            rows.len(),
            rows.join("\n")
        )
    }

    fn parse(text: &str) -> Walls {
        parse_movingai_map(text).expect("test map parses")
    }

    /// Every unit piece of every wall has a free cell on its left and a blocked cell (or
    /// the outside) on its right.
    fn assert_free_on_left(rows: &[&str], walls: &Walls) {
        let free = |p: Vec2| {
            let (c, r) = (p.x.floor(), p.y.floor());
            c >= 0.0
                && r >= 0.0
                && rows
                    .get(r as usize)
                    .and_then(|row| row.chars().nth(c as usize))
                    .is_some_and(|cell| !GridRule::Polyanya.is_obstacle(cell))
        };
        for wall in &walls.segments {
            let direction = (wall.b - wall.a).normalize();
            let left = direction.perp() * 0.5;
            for step in 0..wall.length().round() as usize {
                let middle = wall.a + direction * (step as f32 + 0.5);
                assert!(free(middle + left), "{wall:?}: blocked on the left");
                assert!(!free(middle - left), "{wall:?}: free on the right");
            }
        }
    }

    /// Every free cell centre has winding number 1, every blocked one 0.
    fn assert_winding_matches_cells(rows: &[&str], walls: &Walls) {
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.chars().enumerate() {
                let centre = Vec2::new(c as f32 + 0.5, r as f32 + 0.5);
                let expected = i32::from(!GridRule::Polyanya.is_obstacle(cell));
                assert_eq!(
                    winding_number(walls, centre),
                    expected,
                    "cell ({c}, {r}) = {cell:?}"
                );
            }
        }
    }

    #[test]
    fn blocked_centre_cell_becomes_a_clockwise_hole() {
        let rows = ["...", ".@.", "..."];
        let walls = parse(&map(&rows));
        let expected = vec![
            // Outer ring, counter-clockwise.
            seg(0.0, 0.0, 3.0, 0.0),
            seg(3.0, 0.0, 3.0, 3.0),
            seg(3.0, 3.0, 0.0, 3.0),
            seg(0.0, 3.0, 0.0, 0.0),
            // Centre cell, clockwise.
            seg(1.0, 1.0, 1.0, 2.0),
            seg(1.0, 2.0, 2.0, 2.0),
            seg(2.0, 2.0, 2.0, 1.0),
            seg(2.0, 1.0, 1.0, 1.0),
        ];
        assert_eq!(sorted(walls.segments.clone()), sorted(expected));
        assert_free_on_left(&rows, &walls);
        assert_winding_matches_cells(&rows, &walls);
    }

    #[test]
    fn checkerboard_pinch_keeps_runs_apart() {
        let rows = [".@", "@."];
        let walls = parse(&map(&rows));
        let expected = vec![
            seg(0.0, 0.0, 1.0, 0.0),
            seg(1.0, 0.0, 1.0, 1.0),
            seg(1.0, 1.0, 0.0, 1.0),
            seg(0.0, 1.0, 0.0, 0.0),
            seg(1.0, 1.0, 2.0, 1.0),
            seg(2.0, 1.0, 2.0, 2.0),
            seg(2.0, 2.0, 1.0, 2.0),
            seg(1.0, 2.0, 1.0, 1.0),
        ];
        assert_eq!(sorted(walls.segments.clone()), sorted(expected));
        assert_free_on_left(&rows, &walls);
        assert_winding_matches_cells(&rows, &walls);
    }

    #[test]
    fn long_straight_walls_are_one_segment() {
        let walls = parse(&map(&["......"]));
        assert_eq!(
            sorted(walls.segments),
            sorted(vec![
                seg(0.0, 0.0, 6.0, 0.0),
                seg(6.0, 0.0, 6.0, 1.0),
                seg(6.0, 1.0, 0.0, 1.0),
                seg(0.0, 1.0, 0.0, 0.0),
            ])
        );
    }

    #[test]
    fn obstacle_characters_follow_polyanya() {
        let rows = ["SWT@O", ".GxS.", "....."];
        let walls = parse(&map(&rows));
        assert_winding_matches_cells(&rows, &walls);
        assert!(parse(&map(&["SWT@O"])).segments.is_empty());
    }

    #[test]
    fn winding_is_one_on_free_cells_of_a_mixed_map() {
        let rows = [
            "..@@....T.",
            ".@..@.@@..",
            "@.@.@.....",
            ".@.@..@.@.",
            "....@@@...",
            "T.@......@",
        ];
        let walls = parse(&map(&rows));
        assert_free_on_left(&rows, &walls);
        assert_winding_matches_cells(&rows, &walls);
        // No two walls continue each other in the same direction along the same line.
        for s in &walls.segments {
            for t in &walls.segments {
                let same_direction = (s.b - s.a).normalize() == (t.b - t.a).normalize();
                assert!(!(s.b == t.a && same_direction), "{s:?} then {t:?}");
            }
        }
    }

    #[test]
    fn header_in_any_order_with_crlf_and_trailing_whitespace() {
        let text = "width 2 \r\n\r\nheight 2\r\ntype octile\r\nmap\r\n.@  \r\n..\t\r\n\r\n";
        let walls = parse(text);
        assert_winding_matches_cells(&[".@", ".."], &walls);
        assert_eq!(walls.segments.len(), 6);
    }

    #[test]
    fn row_of_wrong_length_names_its_line() {
        let short = "type octile\nheight 3\nwidth 3\nmap\n...\n..\n...\n";
        assert_eq!(
            parse_movingai_map(short),
            Err(ImportError::BadMapRow {
                line: 6,
                expected_width: 3,
                found: 2
            })
        );
        let long = "type octile\nheight 3\nwidth 3\nmap\n...\n...\n....\n";
        assert_eq!(
            parse_movingai_map(long),
            Err(ImportError::BadMapRow {
                line: 7,
                expected_width: 3,
                found: 4
            })
        );
    }

    #[test]
    fn missing_rows_and_trailing_rows_are_errors() {
        let missing = "type octile\nheight 3\nwidth 3\nmap\n...\n...\n";
        assert_eq!(
            parse_movingai_map(missing),
            Err(ImportError::MissingMapRows {
                line: 6,
                expected: 3,
                found: 2
            })
        );
        let extra = "type octile\nheight 1\nwidth 3\nmap\n...\n\n...\n";
        assert_eq!(
            parse_movingai_map(extra),
            Err(ImportError::TrailingData {
                line: 7,
                found: "...".into()
            })
        );
    }

    #[test]
    fn bad_headers_are_errors() {
        assert_eq!(
            parse_movingai_map("type octile\nwidth 3\nmap\n...\n"),
            Err(ImportError::MissingHeader {
                line: 3,
                key: "height"
            })
        );
        assert_eq!(
            parse_movingai_map("type octile\nheight -3\nwidth 3\nmap\n"),
            Err(ImportError::BadCount {
                line: 2,
                what: "height",
                count: -3,
                min: 0
            })
        );
        assert!(matches!(
            parse_movingai_map("type octile\nheight three\nwidth 3\nmap\n"),
            Err(ImportError::BadNumber { line: 2, .. })
        ));
        assert!(matches!(
            parse_movingai_map("type octile\nheight 1\nheight 1\nwidth 3\nmap\n...\n"),
            Err(ImportError::DuplicateHeader {
                line: 3,
                key: "height"
            })
        ));
        assert!(matches!(
            parse_movingai_map("type octile\nheigth 1\nwidth 3\nmap\n...\n"),
            Err(ImportError::BadHeader { line: 2, .. })
        ));
        assert!(matches!(
            parse_movingai_map("type octile\nheight\nwidth 3\nmap\n"),
            Err(ImportError::BadHeader { line: 2, .. })
        ));
        assert_eq!(
            parse_movingai_map("type octile\nheight 1\nwidth 3\n"),
            Err(ImportError::UnexpectedEnd {
                line: 3,
                expected: "the `map` line"
            })
        );
    }

    #[test]
    fn empty_and_huge_declared_maps_fail_or_succeed_cleanly() {
        assert_eq!(
            parse_movingai_map("type octile\nheight 0\nwidth 0\nmap\n"),
            Ok(Walls::default())
        );
        let wide_but_empty = "height 0\nwidth 9223372036854775807\nmap\n";
        assert_eq!(parse_movingai_map(wide_but_empty), Ok(Walls::default()));
        let huge = "height 9223372036854775807\nwidth 9223372036854775807\nmap\n..\n";
        assert!(matches!(
            parse_movingai_map(huge),
            Err(ImportError::BadMapRow { line: 4, .. })
        ));
    }

    #[test]
    fn every_prefix_fails_or_parses_without_panicking() {
        let text = map(&[".@.", "@.T", "..."]);
        for end in 0..text.len() {
            assert_clean(parse_movingai_map(&text[..end]), &text[..end]);
        }
    }
}
