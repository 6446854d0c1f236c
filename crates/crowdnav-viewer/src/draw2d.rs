//! The top-down view: the level, the agents, and on request the mesh, paths and
//! steering vectors. World coordinates are metres with y up; the screen's y goes down.

use crate::crowd::Crowd;
use crate::edge::to_mq2;
use crate::layout::Margins;
use crowdnav::path::PathPiece;
use crowdnav::scenario::Method;
use crowdnav::steer::DebugKind;
use crowdnav::world::Agent;
use glam::Vec2;
use macroquad::prelude as mq;

/// Colours shared by the 2D and 3D views (the headless test looks for `AGENT`).
pub mod colour {
    use macroquad::color::Color;

    /// Background.
    pub const BACKGROUND: Color = Color::new(0.07, 0.08, 0.10, 1.0);
    /// Walkable floor.
    pub const FLOOR: Color = Color::new(0.17, 0.19, 0.23, 1.0);
    /// Mesh triangle edges (debug).
    pub const MESH: Color = Color::new(0.30, 0.33, 0.40, 1.0);
    /// Walls.
    pub const WALL: Color = Color::new(0.80, 0.80, 0.84, 1.0);
    /// An agent.
    pub const AGENT: Color = Color::new(0.235, 0.588, 1.0, 1.0);
    /// An agent after a collision, until it reaches its target.
    pub const COLLIDED: Color = Color::new(0.90, 0.20, 0.20, 1.0);
    /// A moving obstacle.
    pub const OBSTACLE: Color = Color::new(0.94, 0.59, 0.16, 1.0);
    /// Straight path pieces.
    pub const PATH: Color = Color::new(0.60, 0.60, 0.66, 0.8);
    /// Arcs of paths.
    pub const ARC: Color = Color::new(0.0, 0.80, 0.86, 1.0);
    /// Collision points: magenta, apart from every debug vector's colour (green is
    /// the final velocity).
    pub const HIT: Color = Color::new(1.0, 0.30, 0.95, 1.0);
    /// The outline of an agent after a collision, which sets its red apart from the
    /// red raw-repulsion arrows.
    pub const COLLIDED_RING: Color = Color::new(1.0, 1.0, 1.0, 1.0);
    /// Text.
    pub const TEXT: Color = Color::new(0.92, 0.92, 0.95, 1.0);
    /// The selection and a dragged obstacle.
    pub const HIGHLIGHT: Color = Color::new(1.0, 0.92, 0.35, 1.0);
    /// The player (driven by the W, A, S and D keys).
    pub const PLAYER: Color = Color::new(0.20, 0.80, 0.35, 1.0);
}

/// Colour of a steering debug vector by its label (the seed's code for anti-gravity:
/// red raw repulsion, blue adjusted, yellow sum, green final).
pub fn debug_colour(kind: DebugKind) -> mq::Color {
    match kind {
        DebugKind::Raw => mq::Color::new(0.95, 0.15, 0.15, 1.0),
        DebugKind::Adjusted => mq::Color::new(0.25, 0.35, 1.0, 1.0),
        DebugKind::Sum => mq::Color::new(1.0, 0.90, 0.10, 1.0),
        DebugKind::Final => mq::Color::new(0.15, 0.95, 0.25, 1.0),
        DebugKind::Push => mq::Color::new(1.0, 0.55, 0.10, 1.0),
        DebugKind::OrcaLine => mq::Color::new(0.75, 0.35, 0.95, 1.0),
        DebugKind::Pull | DebugKind::Preferred => mq::Color::new(0.85, 0.85, 0.85, 1.0),
    }
}

/// The steering debug vectors of agent `a` in world space, as (label, from, to):
/// anti-gravity and swarm record them at the agent; ORCA records velocities (drawn
/// from the agent) and its half-planes in velocity space (left out). Long vectors are
/// cut to 4 m.
pub fn debug_vectors<'w>(
    crowd: &'w Crowd,
    a: &'w Agent,
) -> impl Iterator<Item = (DebugKind, Vec2, Vec2)> + 'w {
    let orca = crowd.method == Method::Orca;
    crowd
        .world
        .steer_debug(a.id)
        .into_iter()
        .flat_map(|d| d.vectors.iter())
        .filter(move |v| !(orca && v.kind == DebugKind::OrcaLine))
        .map(move |v| {
            let from = if orca {
                a.position + v.origin
            } else {
                v.origin
            };
            (v.kind, from, from + v.vector.clamp_length_max(4.0))
        })
}

/// The 2D camera: the world point at the screen's centre and pixels per metre.
#[derive(Clone, Copy, Debug)]
pub struct View2 {
    /// World point shown at the centre of the screen.
    pub center: Vec2,
    /// Pixels per metre.
    pub zoom: f32,
}

impl View2 {
    /// A view showing the box `lo..hi` with a margin, between the text rows that
    /// `margins` keeps at the top and the bottom of the screen.
    pub fn fit(lo: Vec2, hi: Vec2, screen: Vec2, margins: Margins) -> View2 {
        let size = (hi - lo).max(Vec2::splat(1.0)) * 1.04;
        let free = (screen.y - margins.top - margins.bottom).max(50.0);
        let zoom = (screen.x / size.x).min(free / size.y);
        // The box's centre on the middle of the free band, not of the screen.
        let band_middle = margins.top + free * 0.5;
        let shift = (band_middle - screen.y * 0.5) / zoom;
        View2 {
            center: (lo + hi) * 0.5 + Vec2::new(0.0, shift),
            zoom,
        }
    }

    /// World → screen.
    pub fn to_screen(self, p: Vec2, screen: Vec2) -> Vec2 {
        let d = (p - self.center) * self.zoom;
        Vec2::new(screen.x * 0.5 + d.x, screen.y * 0.5 - d.y)
    }

    /// Screen → world.
    pub fn to_world(self, s: Vec2, screen: Vec2) -> Vec2 {
        let d = Vec2::new(s.x - screen.x * 0.5, screen.y * 0.5 - s.y);
        self.center + d / self.zoom
    }

    /// Zooms by `factor` keeping the world point under `s` in place.
    pub fn zoom_at(&mut self, s: Vec2, factor: f32, screen: Vec2) {
        let before = self.to_world(s, screen);
        self.zoom = (self.zoom * factor).clamp(0.05, 2000.0);
        let after = self.to_world(s, screen);
        self.center += before - after;
    }
}

/// The screen size as a vector.
pub fn screen() -> Vec2 {
    Vec2::new(mq::screen_width(), mq::screen_height())
}

/// Draws the crowd top-down. `hover` is the static obstacle under the mouse.
pub fn draw(crowd: &Crowd, view: &View2, debug: bool, hover: Option<usize>) {
    let scr = screen();
    let s = |p: Vec2| to_mq2(view.to_screen(p, scr));
    let world = &crowd.world;
    if let Some(mesh) = world.mesh() {
        for t in mesh.walkable_triangles() {
            let [a, b, c] = mesh.triangle_points(t);
            mq::draw_triangle(s(a), s(b), s(c), colour::FLOOR);
        }
        if debug {
            for t in mesh.walkable_triangles() {
                let [a, b, c] = mesh.triangle_points(t);
                for (p, q) in [(a, b), (b, c), (c, a)] {
                    line(s(p), s(q), 1.0, colour::MESH);
                }
            }
        }
    }
    for w in world.walls() {
        line(s(w.a), s(w.b), 2.0, colour::WALL);
    }
    if let (Some(level), Some(k)) = (&crowd.level, hover) {
        if let Some(poly) = level.obstacles.get(k) {
            for i in 0..poly.len() {
                line(
                    s(poly[i]),
                    s(poly[(i + 1) % poly.len()]),
                    3.0,
                    colour::HIGHLIGHT,
                );
            }
        }
    }
    for o in world.obstacles() {
        let c = s(o.position);
        mq::draw_circle(c.x, c.y, o.radius * view.zoom, colour::OBSTACLE);
    }
    if debug {
        for a in world.agents() {
            if let Some(path) = a.path() {
                for piece in path.pieces() {
                    match *piece {
                        PathPiece::Line { from, to } => line(s(from), s(to), 1.5, colour::PATH),
                        PathPiece::Arc { .. } => {
                            let n = 12;
                            for k in 0..n {
                                let p = piece.point_at(k as f32 / n as f32);
                                let q = piece.point_at((k + 1) as f32 / n as f32);
                                line(s(p), s(q), 2.5, colour::ARC);
                            }
                        }
                    }
                }
            }
        }
    }
    let selected = |id| crowd.selection.contains(&id);
    for a in world.agents() {
        let c = s(a.position);
        let r = (a.radius * view.zoom).max(2.0);
        let fill = if Some(a.id) == crowd.player {
            colour::PLAYER
        } else if a.has_collided() {
            colour::COLLIDED
        } else {
            colour::AGENT
        };
        mq::draw_circle(c.x, c.y, r, fill);
        if a.has_collided() {
            mq::draw_circle_lines(c.x, c.y, r, 2.0, colour::COLLIDED_RING);
        } else {
            mq::draw_circle_lines(c.x, c.y, r, 1.5, colour::BACKGROUND);
        }
        if selected(a.id) {
            mq::draw_circle_lines(c.x, c.y, r + 3.0, 2.0, colour::HIGHLIGHT);
        }
        // Heading tick.
        let v = a.velocity;
        if v.length_squared() > 1e-6 {
            let tip = s(a.position + v.normalize() * a.radius);
            line(c, tip, 2.0, colour::BACKGROUND);
        }
    }
    if debug {
        for a in world.agents() {
            for (label, from, to) in debug_vectors(crowd, a) {
                arrow(s(from), s(to), debug_colour(label));
            }
        }
    }
    for &(p, _) in &crowd.hits {
        let c = s(p);
        mq::draw_circle(c.x, c.y, 4.0, colour::HIT);
        mq::draw_circle_lines(c.x, c.y, 4.0, 1.0, colour::BACKGROUND);
    }
}

/// A line between two screen points.
pub fn line(a: mq::Vec2, b: mq::Vec2, thickness: f32, c: mq::Color) {
    mq::draw_line(a.x, a.y, b.x, b.y, thickness, c);
}

/// An arrow between two screen points.
fn arrow(a: mq::Vec2, b: mq::Vec2, c: mq::Color) {
    let d = b - a;
    if d.length() < 1.0 {
        return;
    }
    line(a, b, 2.0, c);
    let u = d.normalize() * 6.0;
    let n = mq::vec2(-u.y, u.x) * 0.6;
    mq::draw_triangle(b, b - u + n, b - u - n, c);
}

/// The selection box, in screen pixels.
pub fn draw_selection_box(a: Vec2, b: Vec2) {
    let (lo, hi) = (a.min(b), a.max(b));
    mq::draw_rectangle_lines(lo.x, lo.y, hi.x - lo.x, hi.y - lo.y, 1.5, colour::HIGHLIGHT);
}
