//! TODO-for-merge: the parts of the `World` binding that need library methods being
//! added on the world branch (generational `AgentId` with `World::remove_agent`,
//! `World::set_velocity` for driven agents, `World::set_preferred_velocity(id,
//! Option<Vec2>)`, `AgentState`). Until they land on main each raises
//! `NotImplementedError`, and the Python tests that use them are skipped with this
//! reason (`tests/test_world.py`, marker `needs_world_branch`).
//!
//! To wire them after the merge (every change is in this file, plus the id
//! conversion in `world.rs`):
//! - `remove_agent`: `world.remove_agent(id)`; with generational ids, a Python id
//!   becomes the `AgentId`'s bits (`u64` or the pair (index, generation)), and
//!   `PyWorld::check` looks it up instead of bounds-checking an index;
//! - `set_preferred_velocities`: `world.set_preferred_velocity(id, Some(v))` per row
//!   (a NaN row could mean `None`: back to path following);
//! - `set_velocity`: `world.set_velocity(id, v)`;
//! - `states`: map `AgentState` to small ints, documented in `_native.pyi`.

use crate::world::PyWorld;
use glam::Vec2;
use numpy::PyArray1;
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;

/// The error of a method that waits for the world branch.
fn pending(what: &str, needs: &str) -> PyErr {
    PyNotImplementedError::new_err(format!(
        "World.{what} needs {needs}, which this build of crowdnav does not have yet"
    ))
}

/// TODO-for-merge: `World::remove_agent`.
pub fn remove_agent(world: &mut PyWorld, agent: i64) -> PyResult<()> {
    world.check(agent)?;
    Err(pending("remove_agent", "World::remove_agent"))
}

/// TODO-for-merge: `World::set_preferred_velocity`.
pub fn set_preferred_velocities(world: &mut PyWorld, velocities: &[Vec2]) -> PyResult<()> {
    let n = world.world.agents().len();
    if velocities.len() != n {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "velocities must have shape ({n}, 2), got ({}, 2)",
            velocities.len()
        )));
    }
    Err(pending(
        "set_preferred_velocities",
        "World::set_preferred_velocity",
    ))
}

/// TODO-for-merge: `World::set_velocity`.
pub fn set_velocity(world: &mut PyWorld, agent: i64, velocity: Vec2) -> PyResult<()> {
    world.check(agent)?;
    let _ = velocity;
    Err(pending("set_velocity", "World::set_velocity"))
}

/// TODO-for-merge: `AgentState`.
pub fn states<'py>(world: &PyWorld, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i8>>> {
    let _ = (world, py);
    Err(pending("states", "AgentState"))
}
