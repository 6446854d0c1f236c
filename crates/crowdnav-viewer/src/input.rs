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
    /// Frame the level again.
    Fit,
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
        KeyCode::D => Action::ToggleDebug,
        KeyCode::V => Action::Toggle3d,
        KeyCode::X => Action::ToggleSpace,
        KeyCode::Space => Action::Pause,
        KeyCode::N => Action::Step,
        KeyCode::H => Action::ToggleHelp,
        KeyCode::Escape => Action::Deselect,
        KeyCode::F => Action::Fit,
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

/// The help of the space scene.
pub const SPACE_HELP: [&str; 2] = [
    "ships fly planet to planet with swarm steering in 3D, avoiding planets and each other",
    "X back to the crowd | Space pause  N step  H help | drag: orbit  wheel: zoom",
];

/// The one-line help.
pub const HELP: [&str; 2] = [
    "any key: load | R circle  B swap  T groups  G blocks  P lines | M method  D debug  V 3D  X space  Space pause  N step  H help",
    "click: goal for selected (all)  drag: select box / move obstacle | right-drag: pan (2D) orbit (3D)  wheel: zoom  F fit  Esc deselect",
];
