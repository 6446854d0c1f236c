//! The viewer's state: which scene, the crowd and the space scene, the cameras, the
//! mouse drag in progress; one frame = input, update, draw.

use crate::args::Scene;
use crate::crowd::Crowd;
use crate::draw2d::{self, colour, screen, View2};
use crate::draw3d::{self, Orbit};
use crate::edge::{from_mq2, ground};
use crate::input::{action_for, Action, HELP, SPACE_HELP};
use crate::layout::{self, Margins};
use crate::space::Space;
use crowdnav::scenario::Method;
use crowdnav::steer::DebugKind;
use glam::Vec2;
use macroquad::models::Mesh;
use macroquad::prelude as mq;

/// Ships in the space scene.
const SHIPS: usize = 40;
/// A press that moves less than this many pixels is a click.
const CLICK_SLOP: f32 = 5.0;
/// Side of the box the O key places, metres.
const BOX_SIZE: f32 = 2.0;

/// What the left or right mouse button is doing.
#[derive(Clone, Copy, Debug)]
enum Drag {
    None,
    /// A selection box from this screen point.
    Select(Vec2),
    /// Moving static obstacle `k`, last at this world point.
    Obstacle(usize, Vec2),
    /// A left press in 3D on open ground: a goal on release, unless it moved.
    Goal3(Vec2),
}

/// The viewer.
pub struct App {
    /// The scene shown.
    pub scene: Scene,
    /// The crowd of the 2D and 3D views.
    pub crowd: Crowd,
    /// The space scene, made when first shown.
    pub space: Option<Space>,
    /// Scene to go back to when leaving the space scene.
    crowd_scene: Scene,
    view2: Option<View2>,
    orbit: Orbit,
    /// Whether `orbit` was framed on the room (it is, the first time the 3D view
    /// shows, and again on F).
    framed: bool,
    floor: Vec<Mesh>,
    floor_dirty: bool,
    /// Debug drawing.
    pub debug: bool,
    help: bool,
    drag: Drag,
    last_mouse: Vec2,
    was_down: bool,
    was_left: bool,
    hover: Option<usize>,
    /// The point of the level under the mouse, as of the last frame.
    pointer: Option<Vec2>,
}

impl App {
    /// A viewer on `crowd`, starting on `scene`.
    pub fn new(crowd: Crowd, scene: Scene) -> App {
        let (lo, hi) = crowd.bounds;
        let c = (lo + hi) * 0.5;
        let orbit = Orbit::new(ground(c, 0.0), (hi - lo).max_element().max(4.0) * 1.25);
        let mut app = App {
            scene: if scene == Scene::Space {
                Scene::TwoD
            } else {
                scene
            },
            crowd,
            space: None,
            crowd_scene: Scene::TwoD,
            view2: None,
            orbit,
            framed: false,
            floor: Vec::new(),
            floor_dirty: true,
            debug: false,
            help: true,
            drag: Drag::None,
            last_mouse: Vec2::ZERO,
            was_down: false,
            was_left: false,
            hover: None,
            pointer: None,
        };
        if scene == Scene::Space {
            app.toggle_space();
        }
        app
    }

    fn toggle_space(&mut self) {
        if self.scene == Scene::Space {
            self.scene = self.crowd_scene;
        } else {
            self.crowd_scene = self.scene;
            self.scene = Scene::Space;
            if self.space.is_none() {
                self.space = Some(Space::new(SHIPS));
            }
        }
    }

    /// Applies the keys of this frame.
    pub fn keys(&mut self, keys: &[mq::KeyCode]) {
        for &k in keys {
            let action = action_for(k);
            if self.scene == Scene::Space {
                match action {
                    Action::ToggleSpace => self.toggle_space(),
                    Action::Pause => {
                        if let Some(s) = &mut self.space {
                            s.paused = !s.paused;
                        }
                    }
                    Action::Step => {
                        if let Some(s) = &mut self.space {
                            s.step();
                        }
                    }
                    Action::ToggleHelp => self.help = !self.help,
                    _ => {}
                }
                continue;
            }
            // The seed: any key loads the entities.
            self.crowd.load();
            match action {
                Action::Formation(kind) => self.crowd.formation(kind),
                Action::CycleMethod => self.crowd.cycle_method(),
                Action::ToggleDebug => self.debug = !self.debug,
                Action::Toggle3d => {
                    self.scene = match self.scene {
                        Scene::ThreeD => Scene::TwoD,
                        _ => Scene::ThreeD,
                    }
                }
                Action::ToggleSpace => self.toggle_space(),
                Action::Pause => self.crowd.paused = !self.crowd.paused,
                Action::Step => self.crowd.step_once(),
                Action::ToggleHelp => self.help = !self.help,
                Action::Deselect => self.crowd.selection.clear(),
                Action::DeleteSelected => {
                    self.crowd.delete_selected();
                }
                Action::Fit => {
                    self.view2 = None;
                    self.framed = false;
                }
                Action::PlaceBox => {
                    if let Some(at) = self.pointer {
                        self.floor_dirty |= self.crowd.place_box(at, BOX_SIZE);
                    }
                }
                Action::RemoveObstacle => {
                    if let Some(at) = self.pointer {
                        self.floor_dirty |= self.crowd.remove_obstacle_at(at);
                        self.hover = None;
                    }
                }
                Action::Load => {}
            }
        }
    }

    /// Drives the player along `direction` (the held W, A, S and D keys) in the crowd
    /// scenes.
    pub fn drive_player(&mut self, direction: glam::Vec2) {
        if self.scene != Scene::Space {
            self.crowd.drive_player(direction);
        }
    }

    /// Handles the mouse: selection, goals, obstacle drags, camera.
    pub fn mouse(&mut self) {
        let m = from_mq2(mq::mouse_position().into());
        let delta = m - self.last_mouse;
        self.last_mouse = m;
        let wheel = mq::mouse_wheel().1;
        use mq::MouseButton::{Left, Middle, Right};
        // A camera drag moves by the pointer's motion since the last frame, counted
        // only while a button was already down then (no jump at the press).
        let down = mq::is_mouse_button_down(Right) || mq::is_mouse_button_down(Middle);
        let camera_drag = down && self.was_down;
        self.was_down = down;
        let left_down = mq::is_mouse_button_down(Left);
        let left_drag = left_down && self.was_left;
        self.was_left = left_down;
        match self.scene {
            Scene::Space => {
                let Some(space) = &mut self.space else { return };
                if wheel != 0.0 {
                    space.orbit.zoom(wheel);
                }
                if camera_drag || left_drag {
                    space.orbit.rotate(crate::edge::to_mq2(delta));
                }
            }
            Scene::TwoD => {
                let scr = screen();
                let Some(view) = &mut self.view2 else { return };
                if wheel != 0.0 {
                    view.zoom_at(m, if wheel > 0.0 { 1.15 } else { 1.0 / 1.15 }, scr);
                }
                if camera_drag {
                    view.center -= Vec2::new(delta.x, -delta.y) / view.zoom;
                }
                let at = view.to_world(m, scr);
                self.pointer = Some(at);
                self.hover = self.crowd.obstacle_at(at);
                if mq::is_mouse_button_pressed(Left) {
                    self.drag = match self.hover {
                        Some(k) => Drag::Obstacle(k, at),
                        None => Drag::Select(m),
                    };
                }
                if let Drag::Obstacle(k, last) = self.drag {
                    if at.distance(last) > 0.02 && self.crowd.move_obstacle(k, at - last) {
                        self.drag = Drag::Obstacle(k, at);
                        self.floor_dirty = true;
                    }
                }
                if mq::is_mouse_button_released(Left) {
                    if let Drag::Select(start) = self.drag {
                        if start.distance(m) < CLICK_SLOP {
                            self.crowd.load();
                            self.crowd.set_goal(at);
                        } else {
                            let a = view.to_world(start, scr);
                            self.crowd.select_box(a, at);
                        }
                    }
                    self.drag = Drag::None;
                }
            }
            Scene::ThreeD => {
                if wheel != 0.0 {
                    self.orbit.zoom(wheel);
                }
                if camera_drag {
                    self.orbit.rotate(crate::edge::to_mq2(delta));
                }
                let at = self.orbit.pick(crate::edge::to_mq2(m));
                self.pointer = at;
                self.hover = at.and_then(|p| self.crowd.obstacle_at(p));
                if mq::is_mouse_button_pressed(Left) {
                    self.drag = match (self.hover, at) {
                        (Some(k), Some(p)) => Drag::Obstacle(k, p),
                        _ => Drag::Goal3(m),
                    };
                }
                if let (Drag::Obstacle(k, last), Some(p)) = (self.drag, at) {
                    if p.distance(last) > 0.02 && self.crowd.move_obstacle(k, p - last) {
                        self.drag = Drag::Obstacle(k, p);
                        self.floor_dirty = true;
                    }
                }
                if mq::is_mouse_button_released(Left) {
                    if let (Drag::Goal3(start), Some(p)) = (self.drag, at) {
                        if start.distance(m) < CLICK_SLOP {
                            self.crowd.load();
                            self.crowd.set_goal(p);
                        }
                    }
                    self.drag = Drag::None;
                }
            }
        }
    }

    /// Advances the scene shown by `frame_dt` seconds.
    pub fn update(&mut self, frame_dt: f32) {
        match self.scene {
            Scene::Space => {
                if let Some(s) = &mut self.space {
                    s.update(frame_dt);
                }
            }
            _ => self.crowd.update(frame_dt),
        }
    }

    /// Draws the frame.
    pub fn draw(&mut self) {
        mq::clear_background(colour::BACKGROUND);
        let hud = self.hud_rows();
        match self.scene {
            Scene::TwoD => {
                let (lo, hi) = self.crowd.bounds;
                let view = *self
                    .view2
                    .get_or_insert_with(|| View2::fit(lo, hi, screen(), hud.margins));
                draw2d::draw(&self.crowd, &view, self.debug, self.hover);
                if let Drag::Select(start) = self.drag {
                    if start.distance(self.last_mouse) >= CLICK_SLOP {
                        draw2d::draw_selection_box(start, self.last_mouse);
                    }
                }
            }
            Scene::ThreeD => {
                if !self.framed {
                    let (lo, hi) = self.crowd.bounds;
                    self.orbit = Orbit::frame(lo, hi, crate::edge::to_mq2(screen()), hud.margins);
                    self.framed = true;
                }
                if self.floor_dirty {
                    self.floor = draw3d::floor_meshes(&self.crowd);
                    self.floor_dirty = false;
                }
                draw3d::draw(&self.crowd, &self.orbit, &self.floor, self.debug);
            }
            Scene::Space => {
                if let Some(s) = &self.space {
                    s.draw();
                }
            }
        }
        self.hud(&hud);
    }

    /// The status and help rows wrapped to the window, and the margins they take.
    fn hud_rows(&self) -> Hud {
        let width = mq::screen_width() - 2.0 * layout::MARGIN;
        let measure = |size: f32| move |s: &str| mq::measure_text(s, None, size as u16, 1.0).width;
        let status = layout::wrap(&self.status(), width, &measure(layout::STATUS_SIZE));
        let help = if !self.help {
            Vec::new()
        } else if self.scene == Scene::Space {
            layout::wrap_all(&SPACE_HELP, width, &measure(layout::HELP_SIZE))
        } else {
            layout::wrap_all(&HELP, width, &measure(layout::HELP_SIZE))
        };
        // The second row holds the prompt until the entities load, then the debug
        // legend; kept free in the crowd's views either way, so that turning debug
        // drawing on does not put the legend over a view framed without it.
        let second = self.scene != Scene::Space;
        let margins = Margins::of(status.len(), second, help.len());
        Hud {
            status,
            help,
            margins,
        }
    }

    /// The status line, unwrapped.
    fn status(&self) -> String {
        match (&self.scene, &self.space) {
            (Scene::Space, Some(s)) => format!(
                "space | swarm 3D | ships {} | {:.2} ms/step | collisions {} | trips {} | t {:.1} s{}",
                s.ships.len(),
                s.step_ms,
                s.collisions,
                s.trips(),
                s.time,
                if s.paused { " | paused" } else { "" }
            ),
            _ => {
                let c = &self.crowd;
                format!(
                    "{} | {} | agents {} | {:.2} ms/step | collisions {} | t {:.1} s{}{}",
                    c.name,
                    c.method.name(),
                    c.world.agents().len(),
                    c.step_ms,
                    c.collisions(),
                    c.world.time(),
                    if c.selection.is_empty() {
                        String::new()
                    } else {
                        format!(" | selected {}", c.selection.len())
                    },
                    if c.paused { " | paused" } else { "" }
                )
            }
        }
    }

    /// The status rows, the legend or the prompt under them, and the help rows at the
    /// bottom: all outside the band the views draw in.
    fn hud(&self, hud: &Hud) {
        let m = layout::MARGIN;
        for (k, row) in hud.status.iter().enumerate() {
            let baseline = m + (k as f32 + 0.75) * layout::STATUS_ROW;
            mq::draw_text(row, m, baseline, layout::STATUS_SIZE, colour::TEXT);
        }
        let second = m + hud.status.len() as f32 * layout::STATUS_ROW + 0.75 * layout::LEGEND_ROW;
        if !self.crowd.loaded && self.scene != Scene::Space {
            // Above the room, never over a pillar or an agent.
            let msg = "press any key to load the entities";
            let size = layout::STATUS_SIZE;
            let d = mq::measure_text(msg, None, size as u16, 1.0);
            mq::draw_text(
                msg,
                ((mq::screen_width() - d.width) * 0.5).max(m),
                second,
                size,
                colour::HIGHLIGHT,
            );
        }
        if self.debug && self.scene != Scene::Space {
            let mut x = m;
            let legend: &[(DebugKind, &str)] = match self.crowd.method {
                Method::AntiGravity => &[
                    (DebugKind::Raw, "raw repulsion"),
                    (DebugKind::Adjusted, "adjusted"),
                    (DebugKind::Sum, "sum"),
                    (DebugKind::Final, "final"),
                ],
                Method::Orca => &[
                    (DebugKind::Preferred, "preferred"),
                    (DebugKind::Final, "final"),
                ],
                Method::Swarm => &[
                    (DebugKind::Pull, "pull"),
                    (DebugKind::Push, "push"),
                    (DebugKind::Final, "final"),
                ],
            };
            let size = layout::LEGEND_SIZE;
            let entries = legend
                .iter()
                .map(|&(label, name)| (name, draw2d::debug_colour(label)))
                .chain([
                    ("path", colour::PATH),
                    ("arc", colour::ARC),
                    ("collision", colour::HIT),
                    ("collided", colour::COLLIDED),
                ]);
            for (name, c) in entries {
                let d = mq::draw_text(name, x, second, size, c);
                x += d.width + 14.0;
            }
        }
        let h = mq::screen_height();
        let rows = hud.help.len();
        for (k, row) in hud.help.iter().enumerate() {
            let baseline = h - m - (rows - 1 - k) as f32 * layout::HELP_ROW;
            mq::draw_text(row, m, baseline, layout::HELP_SIZE, colour::TEXT);
        }
    }
}

/// The text of the frame laid out to the window.
struct Hud {
    /// Status rows, top first.
    status: Vec<String>,
    /// Help rows, top first (none when the help is off).
    help: Vec<String>,
    /// What they take at the top and the bottom.
    margins: Margins,
}

/// The world point under the mouse in the 2D view (for tests of the transform).
#[cfg(test)]
fn world_under(view: &View2, m: mq::Vec2) -> Vec2 {
    view.to_world(from_mq2(m), Vec2::new(800.0, 600.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_and_world_round_trip() {
        let v = View2::fit(
            Vec2::splat(-14.0),
            Vec2::splat(14.0),
            Vec2::new(800.0, 600.0),
            Margins::of(1, false, 2),
        );
        let p = Vec2::new(3.0, -7.5);
        let s = v.to_screen(p, Vec2::new(800.0, 600.0));
        assert!(world_under(&v, crate::edge::to_mq2(s)).distance(p) < 1e-4);
        // Screen y grows downwards: 7.5 m below the centre lands in the lower half of the
        // 600 px window.
        assert!(s.y > 300.0, "y up in the world is up on screen");
    }
}
