//! Python bindings of crowdnav, built by maturin into the package `crowdnav` as its
//! native module `crowdnav._native` (the Python side lives in `python/crowdnav/`).
//!
//! The bindings are thin over the library's public API: NumPy arrays in and out,
//! library errors turned into Python exceptions with the library's message, the GIL
//! released around every long computation. One part is more than a binding: the
//! RVO2-compatible simulator of [`rvo2`], which steps agents the way RVO2 does (no
//! paths, no collision response) with the library's ORCA.

#![forbid(unsafe_code)]

use pyo3::prelude::*;

mod convert;
mod errors;
mod mesh;
mod run;
mod rvo2;
mod world;

/// The native module, `crowdnav._native`. Its names are re-exported by the Python
/// package; see `python/crowdnav/_native.pyi` for their documentation as Python sees it.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<mesh::PyNavMesh>()?;
    m.add_class::<mesh::PyPath>()?;
    m.add_class::<world::PyWorld>()?;
    m.add_class::<rvo2::PyRVOSimulator>()?;
    m.add_function(wrap_pyfunction!(run::run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(rvo2::time_rust_steps, m)?)?;
    m.add_function(wrap_pyfunction!(rvo2::orca_velocity, m)?)?;
    Ok(())
}
