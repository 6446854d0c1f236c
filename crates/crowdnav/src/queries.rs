//! Readers for batches of path queries: the CLI's query CSV and MovingAI `.scen` files.
//!
//! Both readers take the file's text and never panic on bad input: every problem is a
//! [`QueryFileError`] naming the 1-based line where it was found.
//!
//! # Example
//! ```
//! use crowdnav::queries::parse_query_csv;
//! let queries = parse_query_csv("sx,sy,gx,gy,radius\n1,1,9,9,0.5\n")?;
//! assert_eq!(queries.len(), 1);
//! assert_eq!(queries[0].radius, 0.5);
//! # Ok::<(), crowdnav::queries::QueryFileError>(())
//! ```

use crate::mesh::import::snippet;
use crate::path::PathQuery;
use glam::Vec2;

/// Why a query file was rejected.
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

/// The header a query CSV starts with.
pub const QUERY_CSV_HEADER: &str = "sx,sy,gx,gy,radius";

/// Reads a query CSV: the header `sx,sy,gx,gy,radius` (any case, spaces allowed), then
/// one query a line; blank lines are skipped.
///
/// Values are not judged here: a query with a NaN coordinate or a negative radius is
/// read as written, and [`NavMesh::find_path`](crate::mesh::NavMesh::find_path)
/// answers it with [`PathError::InvalidQuery`](crate::path::PathError::InvalidQuery),
/// so one bad query does not sink a batch.
///
/// # Errors
/// [`QueryFileError`] with the line: missing or wrong header, wrong column count, or a
/// field that is not a number.
pub fn parse_query_csv(text: &str) -> Result<Vec<PathQuery>, QueryFileError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((line, header)) = lines.next() else {
        return Err(QueryFileError::Empty {
            expected: QUERY_CSV_HEADER,
        });
    };
    let columns: Vec<String> = header
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    if columns != ["sx", "sy", "gx", "gy", "radius"] {
        return Err(QueryFileError::BadHeader {
            line,
            expected: QUERY_CSV_HEADER,
            found: snippet(header),
        });
    }
    let mut queries = Vec::new();
    for (line, record) in lines {
        let cols: Vec<&str> = record.split(',').map(str::trim).collect();
        if cols.len() != 5 {
            return Err(QueryFileError::Columns {
                line,
                expected: 5,
                found: cols.len(),
            });
        }
        let mut v = [0f32; 5];
        for (slot, col) in v.iter_mut().zip(&cols) {
            *slot = col.parse().map_err(|_| QueryFileError::BadNumber {
                line,
                token: snippet(col),
            })?;
        }
        queries.push(PathQuery {
            start: Vec2::new(v[0], v[1]),
            goal: Vec2::new(v[2], v[3]),
            radius: v[4],
        });
    }
    Ok(queries)
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
        return Err(QueryFileError::BadHeader {
            line,
            expected: HEADER,
            found: snippet(header),
        });
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
            .map_err(|_| QueryFileError::BadNumber {
                line,
                token: snippet(cols[0]),
            })?;
        let mut v = [0f32; 4];
        for (slot, col) in v.iter_mut().zip(&cols[4..8]) {
            *slot = number(line, col, "coordinate")?;
        }
        let length = cols[8]
            .parse::<f64>()
            .map_err(|_| QueryFileError::BadNumber {
                line,
                token: snippet(cols[8]),
            })?;
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
        .map_err(|_| QueryFileError::BadNumber {
            line,
            token: snippet(token),
        })?;
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
    fn query_csv_reads_queries_and_skips_blank_lines() {
        let q = parse_query_csv("\n SX, sy,gx,gy,Radius\n1,2,3,4,0.5\n\n-1,-2,-3,-4,0\n")
            .expect("valid");
        assert_eq!(q.len(), 2);
        assert_eq!(q[1].start, Vec2::new(-1.0, -2.0));
        assert_eq!(q[0].radius, 0.5);
    }

    #[test]
    fn query_csv_errors_name_the_line() {
        let cases = [
            ("", "empty file"),
            ("a,b\n", "line 1: header"),
            ("sx,sy,gx,gy,radius\n1,2,3\n", "line 2: expected 5 columns"),
            (
                "sx,sy,gx,gy,radius\n1,2,3,4,x\n",
                "line 2: `x` is not a number",
            ),
            (
                "sx,sy,gx,gy,radius\n\n1,2,3,4,1,\n",
                "line 3: expected 5 columns",
            ),
        ];
        for (text, want) in cases {
            let e = parse_query_csv(text).expect_err(text).to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn query_csv_leaves_values_to_the_path_query() {
        let q = parse_query_csv("sx,sy,gx,gy,radius\n1,NaN,3,4,-1\n").expect("read");
        assert!(q[0].start.y.is_nan());
        assert_eq!(q[0].radius, -1.0);
    }

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
