//! Locating the shared benchmark data and reading its scenario files.

use std::path::{Path, PathBuf};

/// Whether this is a CI run (`CI=true`, as CI services and `.ci/run` set it): there,
/// a data part that cannot run for want of data is a failure, not a skip.
pub fn data_required() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The data directory: `$CROWDNAV_DATA`, else `../shared/data` beside the repository.
///
/// # Errors
/// Why there is none (the directory that was tried), for a "skipped" message (or, when
/// [`data_required`], a failure).
pub fn data_dir() -> Result<PathBuf, String> {
    let dir = std::env::var_os("CROWDNAV_DATA").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data")),
        PathBuf::from,
    );
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!(
            "benchmark data not found at {} (set CROWDNAV_DATA to the data directory)",
            dir.display()
        ))
    }
}

/// One start/goal pair of a scenario file, in the file's own coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenQuery {
    /// Start point.
    pub start: [f32; 2],
    /// Goal point.
    pub goal: [f32; 2],
}

/// Reads a MovingAI `.scen` (columns bucket, map, width, height, sx, sy, gx, gy,
/// length), taking the coordinates as given: on a Polyanya mesh of a grid map they
/// are grid corners, which is how Polyanya reads them too.
///
/// # Errors
/// An unreadable file or a malformed line.
pub fn read_scen(path: &Path) -> Result<Vec<ScenQuery>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.is_empty() {
            continue;
        }
        let num = |k: usize| -> Result<f32, String> {
            cols.get(k)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("{}:{}: bad column {k}", path.display(), i + 1))
        };
        out.push(ScenQuery {
            start: [num(4)?, num(5)?],
            goal: [num(6)?, num(7)?],
        });
    }
    Ok(out)
}
