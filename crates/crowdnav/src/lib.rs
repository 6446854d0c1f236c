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
