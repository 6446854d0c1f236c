//! MovingAI `.scen` files: the benchmark queries that come with MovingAI's grid maps.
//!
//! The reader takes the file's text and never panics on bad input: every problem is a
//! [`QueryFileError`] naming the 1-based line where it was found.
//!
//! # Example
//! ```
//! use crowdnav::mesh::import::parse_movingai_scen;
//! let scen = "version 1\n0 arena.map 49 49 1 11 1 12 1\n";
//! let entries = parse_movingai_scen(scen)?;
//! assert_eq!(entries[0].goal.y, 12.0);
//! # Ok::<(), crowdnav::mesh::import::QueryFileError>(())
//! ```

use super::snippet;
use glam::Vec2;

/// Why a file of queries (a `.scen`, or the `crowdnav` CLI's query CSV) was rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum QueryFileError {
    /// The file has no header line.
    #[error("line 1: empty file, expected the header {expected}")]
    Empty {
        /// The header the format needs.
        expected: &'static str,
    },
    /// The header is not the one the format needs.
    #[error("line {line}: header must be {expected}, found `{found}`")]
    BadHeader {
        /// Line of the header.
        line: usize,
        /// The header the format needs.
        expected: &'static str,
        /// What the file has (shortened when long).
        found: String,
    },
    /// A record has the wrong number of columns.
    #[error("line {line}: expected {expected} columns, found {found}")]
    Columns {
        /// Line of the record.
        line: usize,
        /// Columns the format needs.
        expected: usize,
        /// Columns found.
        found: usize,
    },
    /// A field is not a number.
    #[error("line {line}: `{token}` is not a number")]
    BadNumber {
        /// Line of the record.
        line: usize,
        /// The field (shortened when long).
        token: String,
    },
    /// A `.scen` coordinate or length is NaN or infinite.
    #[error("line {line}: `{token}` is not a finite {what}")]
    BadValue {
        /// Line of the record.
        line: usize,
        /// The field (shortened when long).
        token: String,
        /// What the field is.
        what: &'static str,
    },
}

impl QueryFileError {
    /// [`QueryFileError::BadHeader`], with the header found cut to a length that reads
    /// well in a message.
    pub fn bad_header(line: usize, expected: &'static str, found: &str) -> QueryFileError {
        QueryFileError::BadHeader {
            line,
            expected,
            found: snippet(found),
        }
    }

    /// [`QueryFileError::BadNumber`], with the field cut to a length that reads well in
    /// a message.
    pub fn bad_number(line: usize, token: &str) -> QueryFileError {
        QueryFileError::BadNumber {
            line,
            token: snippet(token),
        }
    }
}

/// One query of a MovingAI `.scen` file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenEntry {
    /// The bucket (difficulty group) the query belongs to.
    pub bucket: u32,
    /// Start, as the file gives it (grid cell coordinates for `.map` files).
    pub start: Vec2,
    /// Goal, as the file gives it.
    pub goal: Vec2,
    /// The reference length the file gives (octile for grid maps).
    pub length: f64,
}

/// Reads a MovingAI `.scen`: a `version` line, then one query a line with the columns
/// bucket, map, width, height, sx, sy, gx, gy, length (separated by whitespace; the map
/// name has no spaces). Blank lines are skipped. Coordinates are returned as written:
/// add 0.5 to reach cell centres of a grid map.
///
/// # Errors
/// [`QueryFileError`] with the line: no `version` header, a record without nine columns,
/// a field that is not a number, or a value that is not finite.
pub fn parse_movingai_scen(text: &str) -> Result<Vec<ScenEntry>, QueryFileError> {
    const HEADER: &str = "version N";
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((line, header)) = lines.next() else {
        return Err(QueryFileError::Empty { expected: HEADER });
    };
    let mut words = header.split_whitespace();
    if words.next() != Some("version") || words.next().is_none() || words.next().is_some() {
        return Err(QueryFileError::bad_header(line, HEADER, header));
    }
    let mut entries = Vec::new();
    for (line, record) in lines {
        let cols: Vec<&str> = record.split_whitespace().collect();
        if cols.len() != 9 {
            return Err(QueryFileError::Columns {
                line,
                expected: 9,
                found: cols.len(),
            });
        }
        let bucket = cols[0]
            .parse::<u32>()
            .map_err(|_| QueryFileError::bad_number(line, cols[0]))?;
        let mut v = [0f32; 4];
        for (slot, col) in v.iter_mut().zip(&cols[4..8]) {
            *slot = number(line, col, "coordinate")?;
        }
        let length = cols[8]
            .parse::<f64>()
            .map_err(|_| QueryFileError::bad_number(line, cols[8]))?;
        if !length.is_finite() {
            return Err(QueryFileError::BadValue {
                line,
                token: snippet(cols[8]),
                what: "length",
            });
        }
        entries.push(ScenEntry {
            bucket,
            start: Vec2::new(v[0], v[1]),
            goal: Vec2::new(v[2], v[3]),
            length,
        });
    }
    Ok(entries)
}

/// Parses a finite `f32`.
fn number(line: usize, token: &str, what: &'static str) -> Result<f32, QueryFileError> {
    let v = token
        .parse::<f32>()
        .map_err(|_| QueryFileError::bad_number(line, token))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(QueryFileError::BadValue {
            line,
            token: snippet(token),
            what,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scen_reads_movingai_records() {
        let text = "version 1\n0\tarena.map\t49\t49\t1\t2\t3\t4\t2.82842712\n";
        let s = parse_movingai_scen(text).expect("valid");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].goal, Vec2::new(3.0, 4.0));
        assert!((s[0].length - 2.828_427_12).abs() < 1e-12);
    }

    #[test]
    fn scen_errors_name_the_line() {
        let cases = [
            ("", "empty file"),
            ("0 a 1 1 1 1 1 1 1\n", "line 1: header"),
            ("version 1\n0 a 1 1 1 1 1 1\n", "line 2: expected 9 columns"),
            ("version 1\nx a 1 1 1 1 1 1 1\n", "line 2: `x`"),
            ("version 1\n0 a 1 1 1 1 1 1 inf\n", "not a finite length"),
        ];
        for (text, want) in cases {
            let e = parse_movingai_scen(text).expect_err(text).to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
