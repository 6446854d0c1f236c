//! The library's errors as Python exceptions, with the library's own message.
//!
//! Bad input (a malformed file, an invalid polygon, a NaN, an agent the world refuses)
//! is a `ValueError`; a file that does not exist is a `FileNotFoundError`, one that
//! cannot be read for another reason an `OSError`.

use crowdnav::{BuildError, LevelError, LoadError, ScenarioError, WorldError};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyPermissionError, PyValueError};
use pyo3::PyErr;

/// An I/O error on `path` as the matching `OSError` subclass, with `message`.
fn io_error(source: &std::io::Error, message: String) -> PyErr {
    match source.kind() {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

/// A level file that could not be read.
pub fn load(e: LoadError) -> PyErr {
    match &e {
        LoadError::Io { source, .. } => io_error(source, e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A mesh that could not be built.
pub fn build(e: BuildError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An invalid world file.
pub fn level(e: LevelError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A request the world refused.
pub fn world(e: WorldError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A scenario that could not be read or built.
pub fn scenario(e: ScenarioError) -> PyErr {
    match &e {
        ScenarioError::Io { source, .. } => io_error(source, e.to_string()),
        ScenarioError::Load(LoadError::Io { source, .. }) => io_error(source, e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}
