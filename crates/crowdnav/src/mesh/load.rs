//! Reading a level file of any supported format, chosen by extension.

use super::{parse_movingai_map, parse_polyanya_mesh, ImportError, Level, LevelError, Walls};
use std::path::{Path, PathBuf};

/// Why a level file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The extension is none of `.json`, `.mesh`, `.map`.
    #[error("{path}: unknown level format (expected .json, .mesh or .map)")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// A world file (JSON) is malformed or its polygons are invalid.
    #[error("{path}: {source}")]
    Level {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: LevelError,
    },
    /// A `.mesh` or `.map` file is malformed.
    #[error("{path}: {source}")]
    Import {
        /// The file.
        path: PathBuf,
        /// What is wrong, with its line.
        source: ImportError,
    },
}

/// Reads the walls of a level file: a world file (`.json`, see [`Level`]), a Polyanya
/// mesh (`.mesh`, versions 2 and 3) or a MovingAI grid map (`.map`).
///
/// # Errors
/// [`LoadError`] naming the file, and inside it the line, polygon or vertex at fault.
pub fn read_walls(path: &Path) -> Result<Walls, LoadError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let parse: fn(&str) -> Result<Walls, LoadErrorKind> = match ext.as_deref() {
        Some("json") => |t| Ok(Level::from_json(t)?.to_walls()?),
        Some("mesh") => |t| Ok(parse_polyanya_mesh(t)?),
        Some("map") => |t| Ok(parse_movingai_map(t)?),
        _ => {
            return Err(LoadError::UnknownFormat {
                path: path.to_owned(),
            })
        }
    };
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse(&text).map_err(|kind| match kind {
        LoadErrorKind::Level(source) => LoadError::Level {
            path: path.to_owned(),
            source,
        },
        LoadErrorKind::Import(source) => LoadError::Import {
            path: path.to_owned(),
            source,
        },
    })
}

enum LoadErrorKind {
    Level(LevelError),
    Import(ImportError),
}

impl From<LevelError> for LoadErrorKind {
    fn from(e: LevelError) -> Self {
        LoadErrorKind::Level(e)
    }
}

impl From<ImportError> for LoadErrorKind {
    fn from(e: ImportError) -> Self {
        LoadErrorKind::Import(e)
    }
}
