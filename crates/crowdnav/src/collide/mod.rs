//! Collision detection and response for discs (and spheres in 3D) and wall segments.
//!
//! Knows nothing of the world: it works on plain bodies, candidate pairs and segments.
//!
//! - Kernels ([`contact_circle_circle`], [`contact_circle_segment`],
//!   [`contact_sphere_sphere`]) are free functions on plain shapes returning an
//!   `Option<Contact>`.
//! - [`Resolver`] runs one collision phase over many bodies: it detects contacts among
//!   the caller's candidate pairs and walls, gives approaching pairs an impulse with
//!   masses (elastic by default), then pushes overlapping bodies apart until no overlap
//!   deeper than a fraction of the smaller radius is left, recording one
//!   [`CollisionEvent`] per touching pair.

mod contact;
mod resolve;
mod space;

pub use contact::{
    contact_circle_circle, contact_circle_segment, contact_sphere_sphere, Contact, Contact3, Sphere,
};
pub use resolve::{
    normal_impulse, Body, Body3, CollideParams, Collider, CollisionEvent, CollisionEvent3,
    ResolveSummary, Resolver,
};
