//! Conversions at the viewer's edge: macroquad re-exports its own glam (0.27), the
//! library uses another; the two never meet except here.

use macroquad::math as mqm;

/// Library 2D → macroquad 2D.
pub fn to_mq2(v: glam::Vec2) -> mqm::Vec2 {
    mqm::vec2(v.x, v.y)
}

/// Macroquad 2D → library 2D.
pub fn from_mq2(v: mqm::Vec2) -> glam::Vec2 {
    glam::Vec2::new(v.x, v.y)
}

/// Library 3D → macroquad 3D.
pub fn to_mq3(v: glam::Vec3) -> mqm::Vec3 {
    mqm::vec3(v.x, v.y, v.z)
}

/// Macroquad 3D → library 3D.
pub fn from_mq3(v: mqm::Vec3) -> glam::Vec3 {
    glam::Vec3::new(v.x, v.y, v.z)
}

/// A point of the 2D world on the 3D ground plane (y up; the world's y runs along −z
/// so that the 3D view seen from above matches the 2D one).
pub fn ground(p: glam::Vec2, height: f32) -> mqm::Vec3 {
    mqm::vec3(p.x, height, -p.y)
}

/// A point on the 3D ground plane back to the 2D world.
pub fn from_ground(p: glam::Vec3) -> glam::Vec2 {
    glam::Vec2::new(p.x, -p.z)
}

/// Seconds on a monotonic clock, for timing steps: `std::time::Instant` natively
/// (it needs no window, so tests can time), macroquad's clock in the browser, where
/// `Instant` is not available.
pub fn seconds() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64()
    }
    #[cfg(target_arch = "wasm32")]
    {
        macroquad::time::get_time()
    }
}
