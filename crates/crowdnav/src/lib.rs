#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod collide;
pub mod geom;
pub(crate) mod grid;
pub mod mesh;
pub mod path;
pub mod scenario;
pub mod steer;
pub mod world;

pub use mesh::{
    read_walls, BuildError, EditError, Level, LevelError, LoadError, Location, MeshObstacleId,
    MeshQueryError, NavMesh, NearestPoint, RayHit, Slide, WallDistance, Walls,
};
pub use path::{NoPathReason, Path, PathError, PathPiece, PathQuery, QueryProblem};
pub use scenario::{Method, Report, Scenario, ScenarioError};
pub use steer::{AntiGravity, Orca, OrcaParams, OrcaPreset, Steering, Swarm};
pub use world::{
    Agent, AgentBody, AgentEvent, AgentId, AgentParams, AgentState, Goal, MeshEdit, Touched, World,
    WorldError, WorldParams,
};

/// The types most programs need, for `use crowdnav::prelude::*;`: a mesh, a path
/// query, a world of agents with ORCA, and glam's `Vec2` they are given in.
pub mod prelude {
    pub use crate::{
        AgentEvent, AgentId, AgentParams, AgentState, Goal, Level, NavMesh, Orca, OrcaParams, Path,
        PathError, PathQuery, Steering, World, WorldParams,
    };
    pub use glam::Vec2;
}

/// Not part of the public API: internals that `crowdnav-bench` times against their
/// peers (the uniform grids a crowd's neighbours come from). They may change in any
/// release.
#[doc(hidden)]
pub mod bench_support {
    pub use crate::grid::{PointGrid, WallGrid};
}
