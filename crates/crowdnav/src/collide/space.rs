//! The little vector algebra the contact and impulse code needs, written once for
//! `Vec2` and `Vec3`.

use glam::{Vec2, Vec3};
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A vector space the collision kernels run in: `Vec2` for discs, `Vec3` for spheres.
pub(super) trait Space:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<f32, Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
{
    /// The normal used when two centres coincide: `+x`, so the choice is deterministic.
    const FALLBACK_NORMAL: Self;

    /// Dot product.
    fn dot(self, other: Self) -> f32;

    /// Squared length.
    fn length_squared(self) -> f32 {
        self.dot(self)
    }
}

impl Space for Vec2 {
    const FALLBACK_NORMAL: Self = Vec2::X;

    fn dot(self, other: Self) -> f32 {
        Vec2::dot(self, other)
    }
}

impl Space for Vec3 {
    const FALLBACK_NORMAL: Self = Vec3::X;

    fn dot(self, other: Self) -> f32 {
        Vec3::dot(self, other)
    }
}

/// `v / |v|` together with `|v|`, given `|v|²`; `None` when the length is zero or the
/// division would not give a finite vector.
pub(super) fn unit_and_length<V: Space>(v: V, length_squared: f32) -> Option<(V, f32)> {
    let length = length_squared.sqrt();
    let inverse = length.recip();
    if length > 0.0 && length.is_finite() && inverse.is_finite() {
        Some((v * inverse, length))
    } else {
        None
    }
}
