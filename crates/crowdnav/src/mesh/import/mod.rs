//! Importers for third-party level formats: Polyanya `.mesh` (v2, v3) and MovingAI `.map`,
//! and MovingAI's `.scen` query files.
//!
//! Each importer turns a file's text into [`Walls`](crate::mesh::Walls): directed
//! segments with the walkable side on their left. Coordinates are used as the file gives
//! them (no axis flip). The caller picks the importer, for instance by file extension.
//!
//! Importers never panic on bad input: every problem is an [`ImportError`] naming the
//! 1-based line where it was found.

mod movingai;
mod polyanya;
mod scen;

pub use movingai::{parse_movingai_map, parse_movingai_map_with, GridRule};
pub use polyanya::parse_polyanya_mesh;
pub use scen::{parse_movingai_scen, QueryFileError, ScenEntry};

/// Why a level file could not be imported.
///
/// Every variant carries the 1-based `line` where the problem was found; for input that
/// ends too early, that is the last line of the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The input ended where more was expected.
    #[error("line {line}: unexpected end of input, expected {expected}")]
    UnexpectedEnd {
        /// Last line of the input.
        line: usize,
        /// What was still missing.
        expected: &'static str,
    },
    /// A header token or header line is not what the format allows.
    #[error("line {line}: expected {expected}, found `{found}`")]
    BadHeader {
        /// Line of the offending header.
        line: usize,
        /// What the format allows here.
        expected: &'static str,
        /// What the file has (shortened when long).
        found: String,
    },
    /// A Polyanya mesh declares a version other than 2 or 3.
    #[error("line {line}: unsupported mesh version `{version}`, expected 2 or 3")]
    UnsupportedVersion {
        /// Line of the version token.
        line: usize,
        /// The version token as written.
        version: String,
    },
    /// A token is not a number of the expected kind (an integer where an integer is
    /// needed, a 0/1 flag where a flag is needed, ...).
    #[error("line {line}: expected {expected}, found `{token}`")]
    BadNumber {
        /// Line of the token.
        line: usize,
        /// The token as written (shortened when long).
        token: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A coordinate is NaN or infinite (or too large for `f32`).
    #[error("line {line}: {what} `{token}` is not finite")]
    NonFinite {
        /// Line of the coordinate.
        line: usize,
        /// The token as written.
        token: String,
        /// Which coordinate.
        what: &'static str,
    },
    /// A count is negative or too small (a polygon needs at least three vertices).
    #[error("line {line}: {what} is {count}, expected at least {min}")]
    BadCount {
        /// Line of the count.
        line: usize,
        /// Which count.
        what: &'static str,
        /// The count as written.
        count: i64,
        /// The smallest allowed value.
        min: i64,
    },
    /// An index refers to a vertex or polygon that does not exist.
    #[error("line {line}: {what} {index} is out of range {min}..={max}")]
    BadIndex {
        /// Line of the index.
        line: usize,
        /// What the index refers to.
        what: &'static str,
        /// The index as written.
        index: i64,
        /// The smallest valid index.
        min: i64,
        /// The largest valid index (smaller than `min` when nothing is valid).
        max: i64,
    },
    /// A map row does not have `width` cells.
    #[error("line {line}: map row has {found} cells, expected {expected_width}")]
    BadMapRow {
        /// Line of the row.
        line: usize,
        /// The width the header declares.
        expected_width: usize,
        /// The number of cells in the row (trailing whitespace removed).
        found: usize,
    },
    /// A map has fewer rows than its header declares.
    #[error("line {line}: map has {found} rows, expected {expected}")]
    MissingMapRows {
        /// Last line of the input.
        line: usize,
        /// The height the header declares.
        expected: usize,
        /// The number of rows present.
        found: usize,
    },
    /// A map header lacks a required line (`height` or `width`).
    #[error("line {line}: the map header has no `{key}` line")]
    MissingHeader {
        /// Line of the `map` line that ends the header.
        line: usize,
        /// The missing key.
        key: &'static str,
    },
    /// A map header gives the same key twice.
    #[error("line {line}: duplicate `{key}` header line")]
    DuplicateHeader {
        /// Line of the second occurrence.
        line: usize,
        /// The repeated key.
        key: &'static str,
    },
    /// Something other than whitespace follows the last record.
    #[error("line {line}: unexpected data after the end: `{found}`")]
    TrailingData {
        /// Line of the extra data.
        line: usize,
        /// The extra data (shortened when long).
        found: String,
    },
}

/// `s`, cut to a length that reads well in an error message.
pub(crate) fn snippet(s: &str) -> String {
    const MAX_CHARS: usize = 40;
    if s.chars().count() <= MAX_CHARS {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(MAX_CHARS).collect();
        out.push_str("...");
        out
    }
}

/// Helpers shared by the importers' unit tests.
#[cfg(test)]
mod test_support {
    use crate::geom::Segment;
    use crate::mesh::Walls;
    use glam::Vec2;

    /// Winding number of `walls` around `p` (Sunday's crossing rule; `p` must not lie on
    /// a wall).
    pub(super) fn winding_number(walls: &Walls, p: Vec2) -> i32 {
        walls.segments.iter().map(|s| crossing(s, p)).sum()
    }

    fn crossing(s: &Segment, p: Vec2) -> i32 {
        let cross = f64::from(s.b.x - s.a.x) * f64::from(p.y - s.a.y)
            - f64::from(p.x - s.a.x) * f64::from(s.b.y - s.a.y);
        if s.a.y <= p.y && p.y < s.b.y && cross > 0.0 {
            1
        } else if s.b.y <= p.y && p.y < s.a.y && cross < 0.0 {
            -1
        } else {
            0
        }
    }

    /// `true` when `p` is strictly on the left of the directed segment.
    pub(super) fn is_left(s: &Segment, p: Vec2) -> bool {
        (s.b - s.a).perp_dot(p - s.a) > 0.0
    }

    /// The segments sorted, for order-independent comparison.
    pub(super) fn sorted(mut segments: Vec<Segment>) -> Vec<Segment> {
        segments.sort_by(|s, t| {
            let key = |s: &Segment| [s.a.x, s.a.y, s.b.x, s.b.y];
            key(s)
                .partial_cmp(&key(t))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        segments
    }

    /// Segment from `(ax, ay)` to `(bx, by)`.
    /// Checks the importers' promise on one parse of `text`: walls with finite
    /// coordinates, or an error naming a line of `text` (or the one after its end).
    pub(super) fn assert_clean(result: Result<Walls, super::ImportError>, text: &str) {
        match result {
            Ok(walls) => assert!(
                walls
                    .segments
                    .iter()
                    .all(|s| s.a.is_finite() && s.b.is_finite()),
                "{text:?}: non-finite walls"
            ),
            Err(e) => {
                let message = e.to_string();
                let line: Option<usize> = message
                    .strip_prefix("line ")
                    .and_then(|rest| rest.split(':').next())
                    .and_then(|n| n.parse().ok());
                let last = text.lines().count() + 1;
                assert!(
                    line.is_some_and(|l| (1..=last).contains(&l)),
                    "{text:?}: `{message}` names no line in 1..={last}"
                );
            }
        }
    }

    pub(super) fn seg(ax: f32, ay: f32, bx: f32, by: f32) -> Segment {
        Segment::new(Vec2::new(ax, ay), Vec2::new(bx, by))
    }
}
