//! Helpers shared by the integration tests that read `../shared/data`.

use std::path::{Path, PathBuf};

/// Where the data is looked for unless `CROWDNAV_DATA` names another directory.
pub const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");

/// The benchmark data directory (`$CROWDNAV_DATA`, else `../shared/data` beside the
/// repository), or `None` after saying on stderr that the test is skipped.
///
/// # Panics
/// When the directory is missing and `CI=true`: in CI a data-driven test that could not
/// run is a failure, not a skip.
pub fn data_dir() -> Option<PathBuf> {
    let dir =
        std::env::var_os("CROWDNAV_DATA").map_or_else(|| PathBuf::from(DATA_DIR), PathBuf::from);
    match data_dir_at(&dir, in_ci()) {
        Ok(found) => found,
        Err(why) => panic!("{why}"),
    }
}

/// Whether the tests run in CI (`CI=true`, as CI services and `.ci/run` set it).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// `dir` if it is a directory; else `Ok(None)` (skipped, said on stderr), or in CI an
/// error naming the directory.
pub fn data_dir_at(dir: &Path, ci: bool) -> Result<Option<PathBuf>, String> {
    if dir.is_dir() {
        Ok(Some(dir.to_owned()))
    } else if ci {
        Err(format!(
            "benchmark data not found at {} and CI=true: data-driven tests must run in CI \
             (set CROWDNAV_DATA to the data directory)",
            dir.display()
        ))
    } else {
        eprintln!("skipped: benchmark data not found at {}", dir.display());
        Ok(None)
    }
}

/// Files under `dir` whose name ends in `.{extension}`, sorted; recursive on request.
pub fn files_with_extension(dir: &Path, extension: &str, recursive: bool) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            if recursive {
                found.extend(files_with_extension(&path, extension, true));
            }
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
    found.sort();
    found
}
