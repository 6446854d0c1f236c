//! Keys to actions, and the keys of a frame: the keyboard's plus the ones a headless
//! run presses by itself.

use crate::args::ScriptKey;
use crowdnav::scenario::FormationKind;
use macroquad::input::KeyCode;

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Everyone to a formation (the seed's R, B, T, G, P).
    Formation(FormationKind),
    /// Next steering method.
    CycleMethod,
    /// Debug drawing on or off.
    ToggleDebug,
    /// 2D ↔ 3D.
    Toggle3d,
    /// The space scene on or off.
    ToggleSpace,
    /// Pause or resume.
    Pause,
    /// One step while paused.
    Step,
    /// Help on or off.
    ToggleHelp,
    /// Clear the selection.
    Deselect,
    /// Remove the selected agents from the world.
    DeleteSelected,
    /// Frame the level again.
    Fit,
    /// Place a box under the mouse (a mesh edit).
    PlaceBox,
    /// Remove the obstacle under the mouse (a mesh edit).
    RemoveObstacle,
    /// Nothing but loading the entities (any other key).
    Load,
}

/// The action of a key.
pub fn action_for(key: KeyCode) -> Action {
    match key {
        KeyCode::R => Action::Formation(FormationKind::Circle),
        KeyCode::B => Action::Formation(FormationKind::Swap),
        KeyCode::T => Action::Formation(FormationKind::Groups),
        KeyCode::G => Action::Formation(FormationKind::Blocks),
        KeyCode::P => Action::Formation(FormationKind::Lines),
        KeyCode::M => Action::CycleMethod,
        KeyCode::I => Action::ToggleDebug,
        KeyCode::V => Action::Toggle3d,
        KeyCode::X => Action::ToggleSpace,
        KeyCode::Space => Action::Pause,
        KeyCode::N => Action::Step,
        KeyCode::H => Action::ToggleHelp,
        KeyCode::Escape => Action::Deselect,
        KeyCode::Delete | KeyCode::Backspace => Action::DeleteSelected,
        KeyCode::F => Action::Fit,
        KeyCode::O => Action::PlaceBox,
        KeyCode::K => Action::RemoveObstacle,
        _ => Action::Load,
    }
}

/// The keys pressed this frame: the keyboard's (in a fixed order), then the script's.
pub fn keys_this_frame(script: &[ScriptKey], frame: u64, keyboard: bool) -> Vec<KeyCode> {
    let mut keys: Vec<KeyCode> = if keyboard {
        let mut k: Vec<KeyCode> = macroquad::input::get_keys_pressed().into_iter().collect();
        k.sort_by_key(|&c| c as u32);
        k
    } else {
        Vec::new()
    };
    keys.extend(script.iter().filter(|s| s.frame == frame).map(|s| s.key));
    keys
}

/// The way the held W, A, S and D keys point (W up the screen, +y), unit or zero:
/// the player's heading. Always zero without a keyboard (headless runs).
pub fn held_direction(keyboard: bool) -> glam::Vec2 {
    if !keyboard {
        return glam::Vec2::ZERO;
    }
    let down = macroquad::input::is_key_down;
    let axis = |plus: KeyCode, minus: KeyCode| {
        f32::from(u8::from(down(plus))) - f32::from(u8::from(down(minus)))
    };
    glam::Vec2::new(axis(KeyCode::D, KeyCode::A), axis(KeyCode::W, KeyCode::S)).normalize_or_zero()
}

/// The help of the space scene.
pub const SPACE_HELP: [&str; 2] = [
    "ships fly planet to planet with swarm steering in 3D, avoiding planets and each other",
    "X back to the crowd | Space pause  N step  H help | drag: orbit  wheel: zoom",
];

/// The one-line help.
pub const HELP: [&str; 2] = [
    "any key: load | R circle  B swap  T groups  G blocks  P lines | M method  I debug  V 3D  X space  Space pause  N step  H help  WASD player",
    "click: goal  drag: select / move obstacle | right-drag: pan / orbit  wheel: zoom  F fit  Esc deselect  Del delete  O/K box",
];
