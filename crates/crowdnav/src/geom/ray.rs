//! Rays and planes in 3D, for picking: un-project the mouse to a ray, hit the ground.

use glam::Vec3;

/// A half-line from `origin` along `dir` (not necessarily unit length).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start point.
    pub origin: Vec3,
    /// Direction.
    pub dir: Vec3,
}

impl Ray {
    /// The ray from `origin` along `dir`.
    pub const fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, dir }
    }

    /// The point at parameter `t`: `origin + t * dir`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// The plane of points `x` with `normal · x = d`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    /// Normal (not necessarily unit length).
    pub normal: Vec3,
    /// Offset: `normal · x` for every point `x` of the plane.
    pub d: f32,
}

impl Plane {
    /// The ground: `y = 0`, normal `+Y`.
    pub const GROUND: Plane = Plane {
        normal: Vec3::Y,
        d: 0.0,
    };

    /// The plane through `point` with normal `normal`.
    pub fn from_point_normal(point: Vec3, normal: Vec3) -> Self {
        Self {
            normal,
            d: normal.dot(point),
        }
    }
}

/// Where `ray` meets `plane`; `None` when the ray is parallel to the plane or the plane
/// is behind the ray's origin.
///
/// # Example
/// ```
/// use crowdnav::geom::{ray_plane_intersection, Plane, Ray};
/// use glam::Vec3;
/// let ray = Ray::new(Vec3::new(0.0, 10.0, 0.0), Vec3::new(1.0, -1.0, 0.0));
/// assert_eq!(ray_plane_intersection(ray, Plane::GROUND), Some(Vec3::new(10.0, 0.0, 0.0)));
/// ```
pub fn ray_plane_intersection(ray: Ray, plane: Plane) -> Option<Vec3> {
    let denom = plane.normal.dot(ray.dir);
    if denom.abs() <= f32::EPSILON * plane.normal.length() * ray.dir.length() {
        return None;
    }
    let t = (plane.d - plane.normal.dot(ray.origin)) / denom;
    (t >= 0.0 && t.is_finite()).then(|| ray.at(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn a_ray_looking_down_hits_the_ground_below_it() {
        let down = Ray::new(Vec3::new(0.0, 10.0, 0.0), Vec3::new(0.0, -1.0, 0.0));
        assert_eq!(
            ray_plane_intersection(down, Plane::GROUND),
            Some(Vec3::ZERO)
        );
        let flat = Ray::new(Vec3::new(0.0, 10.0, 0.0), Vec3::X);
        assert_eq!(ray_plane_intersection(flat, Plane::GROUND), None);
        let up = Ray::new(Vec3::new(0.0, 10.0, 0.0), Vec3::Y);
        assert_eq!(ray_plane_intersection(up, Plane::GROUND), None);
    }

    #[test]
    fn random_hits_lie_on_the_plane_along_the_ray() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut v = || {
            Vec3::new(
                rng.gen_range(-5.0..5.0),
                rng.gen_range(-5.0..5.0),
                rng.gen_range(-5.0..5.0),
            )
        };
        for _ in 0..1000 {
            let plane = Plane::from_point_normal(v(), v());
            let ray = Ray::new(v(), v());
            if let Some(hit) = ray_plane_intersection(ray, plane) {
                let scale = 1.0 + hit.length() * plane.normal.length();
                assert!((plane.normal.dot(hit) - plane.d).abs() < 1e-3 * scale);
                let along = (hit - ray.origin).dot(ray.dir);
                assert!(along >= -1e-4, "hit behind the origin");
            }
        }
    }
}
