//! The crowd world: agents following exact paths on a navigation mesh, avoiding each
//! other with a [`Steering`](crate::steer::Steering) method, colliding, arriving.
//!
//! [`World::step`] advances a fixed step in named phases, each reading the state the
//! previous one committed (as RVO2's `doStep` and DetourCrowd's `update` do):
//!
//! ```text
//! follow paths (plan, preferred velocity, state) ► neighbours + steer (parallel, old
//!     state only) ► integrate ► move obstacles ► contacts ► keep on mesh
//!     ► point grid ► measure
//! ```
//!
//! Each phase is a file of its own with its own scratch, taking slices of what it reads
//! (`follow.rs`, `neighbors.rs`, `steering.rs`, `integrate.rs`, `contacts.rs`,
//! `keep_on_mesh.rs`, `measure.rs`; `index.rs` holds the point and wall grids); what
//! one phase hands the next is its return value, and `step.rs` calls them in order.
//! Every agent's new velocity depends only on the state before the step, and every
//! reduction runs in a fixed order, so a world gives the same bits on any thread count.
//!
//! Agents are named by generational [`AgentId`]s: [`World::remove_agent`] frees an id
//! for good (a later agent gets a new generation of its slot), and the agents stay in
//! one list in the order they were added, so that any sequence of spawns and removals
//! gives the same bits on any thread count. A game controls an agent between steps:
//! [`World::set_velocity`] drives it (the others avoid it, it yields to nobody),
//! [`World::set_preferred_velocity`] points it (it still avoids),
//! [`World::set_position`], [`World::set_params`], [`World::set_priority`]; it reads
//! each agent's [`AgentState`] and the step's [`AgentEvent`]s
//! ([`World::agent_events`]).
//!
//! The point grid over agents is rebuilt once per step, after the agents moved, and
//! serves that step's measures and the next step's steering; collisions query it
//! widened by how far agents moved since. Each agent's nearest neighbours come from
//! a ring-by-ring search of the point grid that starts where its furthest
//! neighbour was at the last step.
//!
//! Once a crowd's neighbourhoods have been seen, a step allocates nothing: the grid,
//! the goal and arrival buffers, each agent's collision candidates and each thread's
//! steering scratch are kept from step to step (planning a path still allocates it).
//!
//! In front of a door (an opening its path bends through at a wall corner), an agent
//! heads for the least crowded point of the door's width rather than the post its
//! shortest path wraps, so that a crowd uses the whole door (portal steering,
//! [`WorldParams::portals`]; it reads the others from the grid of the start of the
//! step, so it runs after the grid is rebuilt).
//!
//! The world's mesh may be edited between steps ([`World::add_mesh_obstacle`],
//! [`World::move_mesh_obstacle`], [`World::remove_mesh_obstacle`]): the mesh is
//! patched in place, the agents whose route the edit blocks or may shorten re-plan at
//! the next step, the others keep their paths, and agents the edit caught are moved
//! to the nearest place they fit (`edits.rs`).
//!
//! Agents sent to one point gather around it (`gather.rs`): the first to come rests on
//! the point, and each one after it that those gathered there hold up takes the free
//! spot near the point that costs least (nearest the point, and near itself), so that
//! the crowd settles in a compact disc ([`Agent::spot`]) rather than queueing on in a
//! column that never arrives.
//!
//! An agent resting at its goal yields to agents on their way: it sees them moving
//! with their preferred velocity, so it steps aside for one that is blocked, and walks
//! back once pushed off its goal. In a crowd steered by a reciprocal method (ORCA), an
//! agent carried back against its way for [`CARRIED_TIME`] (caught between others
//! walking the other way, whose velocity reciprocal avoidance makes it keep) is yielded
//! to the same way by every neighbour, and the longer it is carried the higher its
//! right of way; and an agent stuck within [`MAKE_WAY_REACH`] radii of its place, or
//! stuck after being carried back for [`MAKE_WAY_CARRIED`], stands still for
//! [`MAKE_WAY_TIME`], making way for whoever it holds up as someone at rest does. An
//! agent that has made no progress for [`TRY_ASIDE_TIME`] (held still by others who
//! each wait for it to move first) tries other ways, turning its own by a
//! deterministic angle drawn every [`TRY_ASIDE_PERIOD`]. A contact counts as a
//! collision only past [`COLLISION_DEPTH`].

mod agent;
mod contacts;
mod control;
mod edits;
mod follow;
mod gather;
mod handles;
mod index;
mod integrate;
mod keep_on_mesh;
mod measure;
mod neighbors;
mod params;
mod portal;
mod steering;
mod step;

pub use agent::{
    Agent, AgentBody, AgentEvent, AgentId, AgentParams, AgentState, Goal, Motion, MovingObstacle,
    ObstacleId, Touched,
};
pub use edits::MeshEdit;
pub use follow::{
    CARRIED_TIME, IMPROVE_PER_STEP, MAKE_WAY_CARRIED, MAKE_WAY_REACH, MAKE_WAY_TIME, NO_PATH_RETRY,
    SETTLE_TIME, STUCK_TIME, TRY_ASIDE_ANGLE, TRY_ASIDE_PERIOD, TRY_ASIDE_TIME,
};
pub use params::{BadValue, Metrics, Quantity, WorldError, WorldParams, COLLISION_DEPTH};
pub use step::World;

#[cfg(test)]
#[path = "world_test.rs"]
mod test;

#[cfg(test)]
#[path = "crowd_test.rs"]
mod crowd_test;

#[cfg(test)]
#[path = "handles_test.rs"]
mod handles_test;

#[cfg(test)]
#[path = "control_test.rs"]
mod control_test;

#[cfg(test)]
#[path = "edits_test.rs"]
mod edits_test;

#[cfg(test)]
#[path = "gather_test.rs"]
mod gather_test;
