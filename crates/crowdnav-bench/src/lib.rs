//! Benchmarks of crowdnav against other libraries, on the shared benchmark data.
//!
//! - [`data`]: where the data lives, and readers for its scenario files.
//! - [`paths`]: shortest-path queries, crowdnav against the `polyanya` crate, at r = 0
//!   on the same mesh and at r > 0 against polyanya's own inflated meshes.
//! - [`blocked`]: the level as obstacle polygons for polyanya's triangulation.
//! - [`crowd`]: ORCA crowds, crowdnav's `World` against `dodgy_2d` fed the same
//!   neighbours (and against DetourCrowd, below).
//! - `detour` (feature `detour`, opt-in): DetourCrowd, the crowd part's third
//!   side, through `recastnavigation-sys`; the crate's only unsafe code.
//! - [`meshes`]: mesh building, crowdnav against polyanya's triangulation.
//! - [`edits`]: run-time obstacle edits on aurora against a full build and polyanya's
//!   build of the edited level, and against Detour's TileCache (feature `detour`).
//! - [`queries`]: the game-loop mesh queries (raycast, nearest point, random point),
//!   crowdnav against Detour's `dtNavMeshQuery` (feature `detour`).
//! - [`flow`]: crowd flow measured from trajectories (line crossings, specific flow,
//!   overlaps, lane order) and crowdnav's runs of the experiments' layouts;
//!   [`jupedsim`]: JuPedSim and PedPy through Python, the other side;
//!   [`flow_report`]: the flow part's tables and plots.
//! - [`run`]: one benchmark run and its report (markdown, JSON, SVG via [`svg`]).
//! - [`guard`]: a time limit for our r > 0 queries (a child process).
//! - [`stats`]: medians, quantiles, repeated timings.
//!
//! The criterion benches (`benches/`) and the `crowdnav-bench` binary both use these.

pub mod blocked;
pub mod crowd;
pub mod data;
#[cfg(feature = "detour")]
pub mod detour;
pub mod edits;
pub mod flow;
pub mod flow_report;
pub mod guard;
pub mod jupedsim;
pub mod meshes;
pub mod paths;
pub mod queries;
pub mod run;
pub mod stats;
pub mod svg;
