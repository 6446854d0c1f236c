//! The `path --queries` file: a CSV of path queries, `sx,sy,gx,gy,radius`.
//!
//! The reader never panics on bad input: every problem is a [`QueryFileError`] naming
//! the 1-based line where it was found. (Kept free of the CLI's other modules, so the
//! fuzz target `query_csv` can include it as it is.)

use crowdnav::mesh::import::QueryFileError;
use crowdnav::path::PathQuery;
use glam::Vec2;

/// The header a query CSV starts with.
pub const QUERY_CSV_HEADER: &str = "sx,sy,gx,gy,radius";

/// Reads a query CSV: the header `sx,sy,gx,gy,radius` (any case, spaces allowed), then
/// one query a line; blank lines are skipped.
///
/// Values are not judged here: a query with a NaN coordinate or a negative radius is
/// read as written, and [`NavMesh::find_path`](crowdnav::mesh::NavMesh::find_path)
/// answers it with [`PathError::InvalidQuery`](crowdnav::path::PathError::InvalidQuery),
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
        return Err(QueryFileError::bad_header(line, QUERY_CSV_HEADER, header));
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
            *slot = col
                .parse()
                .map_err(|_| QueryFileError::bad_number(line, col))?;
        }
        queries.push(PathQuery {
            start: Vec2::new(v[0], v[1]),
            goal: Vec2::new(v[2], v[3]),
            radius: v[4],
        });
    }
    Ok(queries)
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
}
