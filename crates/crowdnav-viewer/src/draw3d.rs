//! The 3D view: the same world on a ground plane under a perspective camera that
//! orbits and zooms, and mouse picking by un-projecting the cursor to a ray and
//! hitting the ground plane (the swarm seed's picking, with the library's
//! [`ray_plane_intersection`]).

use crate::crowd::{point_in_polygon, Crowd};
use crate::draw2d::{colour, debug_colour, debug_vectors};
use crate::edge::{from_ground, from_mq3, ground};
use crate::layout::Margins;
use crowdnav::geom::{ray_plane_intersection, Plane, Ray};
use crowdnav::path::PathPiece;
use glam::Vec2;
use macroquad::models::{Mesh, Vertex};
use macroquad::prelude as mq;

/// Height of the extruded walls, metres.
const WALL_HEIGHT: f32 = 1.0;

/// The top face of a static obstacle: lighter than the walls' faces, as lit from
/// above.
const OBSTACLE_TOP: mq::Color = mq::Color::new(0.68, 0.69, 0.74, 1.0);

/// A camera orbiting a target point.
#[derive(Clone, Copy, Debug)]
pub struct Orbit {
    /// The point looked at.
    pub target: mq::Vec3,
    /// Angle around the vertical axis, radians.
    pub yaw: f32,
    /// Angle above the ground, radians.
    pub pitch: f32,
    /// Distance to the target.
    pub distance: f32,
}

impl Orbit {
    /// A camera looking at `target` from `distance` away, 50° above the ground.
    pub fn new(target: mq::Vec3, distance: f32) -> Orbit {
        Orbit {
            target,
            yaw: -0.6,
            pitch: 0.9,
            distance,
        }
    }

    /// The macroquad camera.
    pub fn camera(&self) -> mq::Camera3D {
        let dir = mq::vec3(
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
            self.pitch.cos() * self.yaw.cos(),
        );
        mq::Camera3D {
            position: self.target + dir * self.distance,
            target: self.target,
            up: mq::Vec3::Y,
            fovy: 45f32.to_radians(),
            z_near: (self.distance * 0.01).max(0.01),
            z_far: self.distance * 20.0 + 1000.0,
            ..Default::default()
        }
    }

    /// The camera's view-projection matrix for a screen of this aspect ratio (as
    /// macroquad's `Camera3D::matrix`, without needing a window).
    pub fn view_projection(&self, aspect: f32) -> mq::Mat4 {
        let c = self.camera();
        mq::Mat4::perspective_rh_gl(c.fovy, aspect, c.z_near, c.z_far)
            * mq::Mat4::look_at_rh(c.position, c.target, c.up)
    }

    /// Turns the camera by a mouse drag of `d` pixels.
    pub fn rotate(&mut self, d: mq::Vec2) {
        self.yaw -= d.x * 0.008;
        self.pitch = (self.pitch + d.y * 0.008).clamp(0.08, 1.55);
    }

    /// Zooms in (wheel up) or out.
    pub fn zoom(&mut self, wheel: f32) {
        self.distance = (self.distance * (1.0 - 0.1 * wheel.signum())).clamp(1.0, 5000.0);
    }

    /// The ray from the eye through screen point `s` on a screen of `size` pixels:
    /// the cursor to normalised device coordinates, through the inverse
    /// view-projection at the near and far planes.
    pub fn ray_on(&self, s: mq::Vec2, size: mq::Vec2) -> Ray {
        let inv = self.view_projection(size.x / size.y).inverse();
        let ndc = mq::vec2(2.0 * s.x / size.x - 1.0, 1.0 - 2.0 * s.y / size.y);
        let near = inv.project_point3(mq::vec3(ndc.x, ndc.y, -1.0));
        let far = inv.project_point3(mq::vec3(ndc.x, ndc.y, 1.0));
        Ray::new(from_mq3(near), from_mq3((far - near).normalize_or_zero()))
    }

    /// The 2D world point under screen point `s`, if the ray hits the ground.
    pub fn pick(&self, s: mq::Vec2) -> Option<Vec2> {
        self.pick_on(s, mq::vec2(mq::screen_width(), mq::screen_height()))
    }

    /// [`Orbit::pick`] on a screen of `size` pixels.
    fn pick_on(&self, s: mq::Vec2, size: mq::Vec2) -> Option<Vec2> {
        ray_plane_intersection(self.ray_on(s, size), Plane::GROUND).map(from_ground)
    }

    /// Where 3D point `p` appears on a screen of `size` pixels, or `None` behind the
    /// eye.
    fn project(&self, p: mq::Vec3, size: mq::Vec2) -> Option<mq::Vec2> {
        let clip = self.view_projection(size.x / size.y) * p.extend(1.0);
        (clip.w > 1e-6).then(|| {
            let ndc = clip.truncate() / clip.w;
            mq::vec2((ndc.x + 1.0) * 0.5 * size.x, (1.0 - ndc.y) * 0.5 * size.y)
        })
    }

    /// The camera at its usual angle that frames the box `lo..hi`, from the ground to
    /// the walls' tops, as large as it fits in the band of a screen of `size` pixels
    /// that `margins` leaves free of text (less a margin at the sides), and centred in
    /// it: the room's corners all show and no wall runs under the text.
    pub fn frame(lo: Vec2, hi: Vec2, size: mq::Vec2, margins: Margins) -> Orbit {
        let corners: Vec<mq::Vec3> = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)]
            .into_iter()
            .flat_map(|p| [ground(p, 0.0), ground(p, WALL_HEIGHT)])
            .collect();
        let side = (0.03 * size.x).max(8.0);
        let (x0, x1) = (side, size.x - side);
        let (y0, y1) = (
            margins.top,
            (size.y - margins.bottom).max(margins.top + 1.0),
        );
        let band = mq::vec2((x0 + x1) * 0.5, (y0 + y1) * 0.5);
        let extent = (hi - lo).max_element().max(1.0);
        // The projected box at a distance, recentred on the band: moving camera and
        // target together along the ground slides the picture without turning it.
        let placed = |distance: f32| {
            let mut o = Orbit::new(ground((lo + hi) * 0.5, 0.0), distance);
            for _ in 0..4 {
                let shown: Option<Vec<mq::Vec2>> =
                    corners.iter().map(|&c| o.project(c, size)).collect();
                let Some(shown) = shown else { return (o, None) };
                let (a, b) = shown.iter().fold(
                    (
                        mq::Vec2::splat(f32::INFINITY),
                        mq::Vec2::splat(f32::NEG_INFINITY),
                    ),
                    |(a, b), &p| (a.min(p), b.max(p)),
                );
                let (Some(from), Some(to)) =
                    (o.pick_on((a + b) * 0.5, size), o.pick_on(band, size))
                else {
                    return (o, None);
                };
                o.target += ground(from - to, 0.0);
            }
            let shown: Option<Vec<mq::Vec2>> =
                corners.iter().map(|&c| o.project(c, size)).collect();
            (o, shown)
        };
        let fits = |shown: &Option<Vec<mq::Vec2>>| {
            shown.as_ref().is_some_and(|v| {
                v.iter()
                    .all(|p| p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1)
            })
        };
        // The nearest distance that fits, by bisection.
        let (mut near, mut far) = (0.2 * extent, 40.0 * extent);
        for _ in 0..40 {
            let mid = 0.5 * (near + far);
            if fits(&placed(mid).1) {
                far = mid;
            } else {
                near = mid;
            }
        }
        placed(far).0
    }

    /// Where the 2D world point `p` on the ground appears on a screen of `size` pixels.
    #[cfg(test)]
    pub fn project_on(&self, p: Vec2, size: mq::Vec2) -> mq::Vec2 {
        let ndc = self
            .view_projection(size.x / size.y)
            .project_point3(ground(p, 0.0));
        mq::vec2((ndc.x + 1.0) * 0.5 * size.x, (1.0 - ndc.y) * 0.5 * size.y)
    }
}

/// The walkable floor as triangle meshes (chunked for 16-bit indices), with the tops
/// of the static obstacles.
pub fn floor_meshes(crowd: &Crowd) -> Vec<Mesh> {
    let Some(navmesh) = crowd.world.mesh() else {
        return Vec::new();
    };
    let floor = navmesh
        .walkable_triangles()
        .map(|t| navmesh.triangle_points(t));
    let mut out = flat_meshes(floor, 0.0, colour::FLOOR);
    out.extend(obstacle_tops(crowd));
    out
}

/// The tops of the static obstacles at the walls' height, so that pillars look
/// solid: the mesh's blocked triangles inside the level's boundary (all of them when
/// the level is not known, as for a `.map` grid's cells).
fn obstacle_tops(crowd: &Crowd) -> Vec<Mesh> {
    let Some(navmesh) = crowd.world.mesh() else {
        return Vec::new();
    };
    let boundary = crowd.level.as_ref().map(|l| l.boundary.as_slice());
    let tops = navmesh
        .triangles()
        .filter(|&t| !navmesh.is_walkable(t))
        .map(|t| navmesh.triangle_points(t))
        .filter(|points| {
            let middle = (points[0] + points[1] + points[2]) / 3.0;
            boundary.is_none_or(|b| point_in_polygon(middle, b))
        });
    flat_meshes(tops, WALL_HEIGHT, OBSTACLE_TOP)
}

/// Flat triangles at `height` in one colour, as meshes of at most 2^16 vertices each
/// (16-bit indices); none for no triangles.
fn flat_meshes(
    triangles: impl Iterator<Item = [Vec2; 3]>,
    height: f32,
    colour: mq::Color,
) -> Vec<Mesh> {
    let empty = || Mesh {
        vertices: Vec::new(),
        indices: Vec::new(),
        texture: None,
    };
    let c: [u8; 4] = colour.into();
    let mut out = Vec::new();
    let mut mesh = empty();
    for points in triangles {
        if mesh.vertices.len() + 3 > u16::MAX as usize {
            out.push(std::mem::replace(&mut mesh, empty()));
        }
        for p in points {
            mesh.indices.push(mesh.vertices.len() as u16);
            mesh.vertices.push(Vertex {
                position: ground(p, height),
                uv: mq::Vec2::ZERO,
                color: c,
                normal: mq::Vec4::ZERO,
            });
        }
    }
    if !mesh.vertices.is_empty() {
        out.push(mesh);
    }
    out
}

/// Draws the crowd in 3D under `orbit`. `floor` is [`floor_meshes`] of the crowd's
/// current mesh.
pub fn draw(crowd: &Crowd, orbit: &Orbit, floor: &[Mesh], debug: bool) {
    let world = &crowd.world;
    mq::set_camera(&orbit.camera());
    for m in floor {
        mq::draw_mesh(m);
    }
    if debug {
        if let Some(mesh) = world.mesh() {
            for t in mesh.walkable_triangles() {
                let [a, b, c] = mesh.triangle_points(t);
                for (p, q) in [(a, b), (b, c), (c, a)] {
                    mq::draw_line_3d(ground(p, 0.01), ground(q, 0.01), colour::MESH);
                }
            }
        }
    }
    let wall_face = mq::Color::new(0.55, 0.56, 0.62, 1.0);
    for w in world.walls() {
        let a = ground(w.a, 0.0);
        let b = ground(w.b, 0.0);
        mq::draw_affine_parallelogram(a, b - a, mq::vec3(0.0, WALL_HEIGHT, 0.0), None, wall_face);
        mq::draw_line_3d(
            ground(w.a, WALL_HEIGHT),
            ground(w.b, WALL_HEIGHT),
            colour::WALL,
        );
    }
    for o in world.obstacles() {
        mq::draw_cylinder(
            ground(o.position, 0.0),
            o.radius,
            o.radius,
            1.2,
            None,
            colour::OBSTACLE,
        );
    }
    if debug {
        for a in world.agents() {
            let Some(path) = a.path() else { continue };
            for piece in path.pieces() {
                match *piece {
                    PathPiece::Line { from, to } => {
                        mq::draw_line_3d(ground(from, 0.03), ground(to, 0.03), colour::PATH)
                    }
                    PathPiece::Arc { .. } => {
                        for k in 0..12 {
                            let p = piece.point_at(k as f32 / 12.0);
                            let q = piece.point_at((k + 1) as f32 / 12.0);
                            mq::draw_line_3d(ground(p, 0.03), ground(q, 0.03), colour::ARC);
                        }
                    }
                }
            }
        }
    }
    for a in world.agents() {
        let fill = if Some(a.id) == crowd.player {
            colour::PLAYER
        } else if a.has_collided() {
            colour::COLLIDED
        } else {
            colour::AGENT
        };
        mq::draw_cylinder(
            ground(a.position, 0.0),
            a.radius,
            a.radius,
            1.6 * a.radius,
            None,
            fill,
        );
        mq::draw_sphere(
            ground(a.position, 1.6 * a.radius),
            a.radius * 0.55,
            None,
            mq::Color::new(
                fill.r * 0.6 + 0.4,
                fill.g * 0.6 + 0.4,
                fill.b * 0.6 + 0.4,
                1.0,
            ),
        );
        if a.has_collided() {
            ring(a.position, a.radius + 0.05, colour::COLLIDED_RING);
        }
        if crowd.selection.contains(&a.id) {
            ring(a.position, a.radius + 0.15, colour::HIGHLIGHT);
        }
        if debug {
            for (label, from, to) in debug_vectors(crowd, a) {
                mq::draw_line_3d(ground(from, 0.5), ground(to, 0.5), debug_colour(label));
            }
        }
    }
    for &(p, _) in &crowd.hits {
        mq::draw_sphere(ground(p, 0.5), 0.12, None, colour::HIT);
    }
    mq::set_default_camera();
}

/// A ring on the ground.
fn ring(c: Vec2, r: f32, colour: mq::Color) {
    let n = 24;
    for k in 0..n {
        let a = Vec2::from_angle(k as f32 / n as f32 * std::f32::consts::TAU);
        let b = Vec2::from_angle((k + 1) as f32 / n as f32 * std::f32::consts::TAU);
        mq::draw_line_3d(ground(c + a * r, 0.02), ground(c + b * r, 0.02), colour);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picking_finds_the_ground_point_under_the_cursor() {
        let orbit = Orbit::new(mq::Vec3::ZERO, 35.0);
        let size = mq::vec2(1024.0, 768.0);
        for p in [Vec2::ZERO, Vec2::new(-5.0, 4.0), Vec2::new(12.0, -13.0)] {
            let s = orbit.project_on(p, size);
            let hit = ray_plane_intersection(orbit.ray_on(s, size), Plane::GROUND)
                .map(from_ground)
                .expect("a ray towards the ground hits it");
            assert!(hit.distance(p) < 1e-3, "{p} picked as {hit}");
        }
        // Above the horizon there is no ground.
        let up = Orbit {
            pitch: 0.1,
            ..orbit
        };
        let sky = ray_plane_intersection(up.ray_on(mq::vec2(512.0, 0.0), size), Plane::GROUND);
        assert!(sky.is_none());
    }

    #[test]
    fn the_camera_frames_the_room_between_the_status_and_the_help() {
        let (lo, hi) = (Vec2::splat(-14.0), Vec2::splat(14.0));
        for (w, h) in [
            (640.0, 480.0),
            (800.0, 600.0),
            (1024.0, 768.0),
            (1280.0, 720.0),
        ] {
            let size = mq::vec2(w, h);
            let margins = Margins {
                top: 40.0,
                bottom: 60.0,
            };
            let o = Orbit::frame(lo, hi, size, margins);
            let mut shown = Vec::new();
            for p in [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)] {
                for z in [0.0, WALL_HEIGHT] {
                    shown.push(o.project(ground(p, z), size).expect("in front"));
                }
            }
            for p in &shown {
                assert!(p.x >= 0.0 && p.x <= w, "{w}x{h}: corner at {p}");
                assert!(
                    p.y >= margins.top && p.y <= h - margins.bottom,
                    "{w}x{h}: corner at {p} under text"
                );
            }
            // As large as it fits: the room spans the band's height or its width.
            let (a, b) = shown.iter().fold(
                (
                    mq::Vec2::splat(f32::INFINITY),
                    mq::Vec2::splat(f32::NEG_INFINITY),
                ),
                |(a, b), &p| (a.min(p), b.max(p)),
            );
            let band = h - margins.top - margins.bottom;
            let span = ((b.y - a.y) / band).max((b.x - a.x) / w);
            // The framing fits the room to the band, to 1 % (was a loose 0.9). Measured:
            // 0.99997 at all four sizes.
            assert!(span > 0.99, "{w}x{h}: the room fills {span} of the band");
        }
    }
}
