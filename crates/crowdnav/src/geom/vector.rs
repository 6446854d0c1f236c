//! Small vector operations.

use glam::{Vec2, Vec3};

/// Reflects `v` about the line through the origin with direction `axis`:
/// `2 (v·â) â − v`. A zero `axis` leaves `v` unchanged.
///
/// # Example
/// ```
/// use crowdnav::geom::mirror;
/// use glam::Vec2;
/// assert_eq!(mirror(Vec2::new(1.0, 1.0), Vec2::X), Vec2::new(1.0, -1.0));
/// ```
pub fn mirror(v: Vec2, axis: Vec2) -> Vec2 {
    match axis.try_normalize() {
        Some(a) => 2.0 * v.dot(a) * a - v,
        None => v,
    }
}

/// [`mirror`] in 3D: reflects `v` about the line through the origin along `axis`.
pub fn mirror3(v: Vec3, axis: Vec3) -> Vec3 {
    match axis.try_normalize() {
        Some(a) => 2.0 * v.dot(a) * a - v,
        None => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn mirroring_about_the_axes() {
        assert_eq!(mirror(Vec2::new(1.0, 1.0), Vec2::X), Vec2::new(1.0, -1.0));
        assert_eq!(
            mirror(Vec2::new(1.0, 1.0), Vec2::new(0.0, 3.0)),
            Vec2::new(-1.0, 1.0)
        );
        let d = mirror(Vec2::new(1.0, 0.0), Vec2::new(1.0, 1.0));
        assert!((d - Vec2::new(0.0, 1.0)).length() < 1e-6);
        assert_eq!(mirror(Vec2::new(2.0, 5.0), Vec2::ZERO), Vec2::new(2.0, 5.0));
        assert_eq!(
            mirror3(Vec3::new(1.0, 2.0, 3.0), Vec3::Y),
            Vec3::new(-1.0, 2.0, -3.0)
        );
    }

    #[test]
    fn mirroring_twice_is_identity_and_keeps_length() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..1000 {
            let v = Vec2::new(rng.gen_range(-9.0..9.0), rng.gen_range(-9.0..9.0));
            let a = Vec2::new(rng.gen_range(-9.0..9.0), rng.gen_range(-9.0..9.0));
            let m = mirror(v, a);
            assert!((m.length() - v.length()).abs() < 1e-4);
            assert!((mirror(m, a) - v).length() < 1e-4);
            let v3 = Vec3::new(v.x, v.y, rng.gen_range(-9.0..9.0));
            let a3 = Vec3::new(a.x, a.y, rng.gen_range(-9.0..9.0));
            assert!((mirror3(mirror3(v3, a3), a3) - v3).length() < 1e-3);
        }
    }
}
