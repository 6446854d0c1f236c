//! Collision detection and response for discs (and spheres in 3D) and wall segments.
//!
//! Knows nothing of the world: it works on plain bodies, candidate pairs and segments.
