#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod geom;
pub mod mesh;
pub mod path;
