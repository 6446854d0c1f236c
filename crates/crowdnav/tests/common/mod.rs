//! Helpers shared by the integration tests that read `../shared/data`.

use std::path::{Path, PathBuf};

pub const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");

pub fn data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(DATA_DIR);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared/data not found ({DATA_DIR})");
        None
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
