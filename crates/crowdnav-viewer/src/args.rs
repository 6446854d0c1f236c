//! The command line: an optional scenario or level file, the scene to start on, and
//! the headless options (`--screenshot FILE.png --frames N --keys "R T"`).

use crowdnav::scenario::Method;
use macroquad::input::KeyCode;
use std::path::PathBuf;

/// Which scene the viewer shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scene {
    /// The crowd, top-down.
    TwoD,
    /// The same crowd on a ground plane under a perspective camera.
    ThreeD,
    /// Ships flying between orbiting planets (swarm steering in 3D).
    Space,
}

/// A key the headless run presses by itself, at a given frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScriptKey {
    /// Frame (0 = the first) at which it is pressed.
    pub frame: u64,
    /// The key.
    pub key: KeyCode,
}

/// Everything the command line says.
#[derive(Clone, Debug)]
pub struct Args {
    /// A scenario (`scenarios/*.json`) or a level (`.json` world, `.mesh`, `.map`).
    pub file: Option<PathBuf>,
    /// The scene to start on.
    pub scene: Scene,
    /// Steering method to start with (the scenario's own, or ORCA for the demo).
    pub method: Option<Method>,
    /// Save the last frame to this PNG and exit.
    pub screenshot: Option<PathBuf>,
    /// Frames to run before the screenshot.
    pub frames: u64,
    /// Keys pressed by the headless run.
    pub keys: Vec<ScriptKey>,
    /// Window size, pixels.
    pub size: (i32, i32),
}

/// The usage text.
pub const USAGE: &str =
    "usage: crowdnav-view [FILE] [--scene 2d|3d|space] [--method orca|antigravity|swarm]
                     [--screenshot FILE.png --frames N [--keys \"R T@60\"]] [--size WxH]
  FILE  a scenario (scenarios/*.json) or a level (.json world, .mesh, .map)
  keys in --keys: letters, digits, Space, Tab, Esc; KEY@N presses it at frame N";

impl Default for Args {
    fn default() -> Self {
        Self {
            file: None,
            scene: Scene::TwoD,
            method: None,
            screenshot: None,
            frames: 120,
            keys: Vec::new(),
            size: (1024, 768),
        }
    }
}

/// What the command line asked for instead of a run.
#[derive(Debug, PartialEq)]
pub enum ArgsError {
    /// `--help`.
    Help,
    /// A mistake, in one line.
    Bad(String),
}

/// Parses the arguments (without the program name).
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, ArgsError> {
    let mut out = Args::default();
    let mut it = args.into_iter();
    let bad = |s: String| ArgsError::Bad(s);
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| bad(format!("{name} needs a value")))
        };
        match a.as_str() {
            "-h" | "--help" => return Err(ArgsError::Help),
            "--scene" => {
                out.scene = match value("--scene")?.as_str() {
                    "2d" => Scene::TwoD,
                    "3d" => Scene::ThreeD,
                    "space" => Scene::Space,
                    s => return Err(bad(format!("unknown scene {s:?} (2d, 3d or space)"))),
                }
            }
            "--method" => {
                out.method = Some(match value("--method")?.as_str() {
                    "orca" => Method::Orca,
                    "antigravity" => Method::AntiGravity,
                    "swarm" => Method::Swarm,
                    s => {
                        return Err(bad(format!(
                            "unknown method {s:?} (orca, antigravity or swarm)"
                        )))
                    }
                })
            }
            "--screenshot" => out.screenshot = Some(PathBuf::from(value("--screenshot")?)),
            "--frames" => {
                let v = value("--frames")?;
                out.frames =
                    v.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        bad(format!("--frames wants a positive count, got {v:?}"))
                    })?;
            }
            "--keys" => {
                for word in value("--keys")?.split_whitespace() {
                    out.keys.push(parse_script_key(word).map_err(bad)?);
                }
            }
            "--size" => {
                let v = value("--size")?;
                out.size = v
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                    .filter(|&(w, h): &(i32, i32)| {
                        (64..=8192).contains(&w) && (64..=8192).contains(&h)
                    })
                    .ok_or_else(|| bad(format!("--size wants WxH in pixels, got {v:?}")))?;
            }
            s if s.starts_with('-') => return Err(bad(format!("unknown option {s}"))),
            s => {
                if out.file.is_some() {
                    return Err(bad(format!("one file at most, got a second: {s}")));
                }
                out.file = Some(PathBuf::from(s));
            }
        }
    }
    if out.screenshot.is_none() && !out.keys.is_empty() {
        return Err(bad("--keys needs --screenshot".to_owned()));
    }
    Ok(out)
}

/// `R`, `Space` or `T@60`.
fn parse_script_key(word: &str) -> Result<ScriptKey, String> {
    let (name, frame) = match word.split_once('@') {
        Some((n, f)) => (
            n,
            f.parse()
                .map_err(|_| format!("bad frame in key {word:?}"))?,
        ),
        None => (word, 0),
    };
    let key = key_by_name(name).ok_or_else(|| format!("unknown key {name:?}"))?;
    Ok(ScriptKey { frame, key })
}

/// A key by its name: a letter, a digit, `Space`, `Tab` or `Esc`.
pub fn key_by_name(name: &str) -> Option<KeyCode> {
    use KeyCode::*;
    const LETTERS: [KeyCode; 26] = [
        A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z,
    ];
    const DIGITS: [KeyCode; 10] = [Key0, Key1, Key2, Key3, Key4, Key5, Key6, Key7, Key8, Key9];
    match name.to_ascii_lowercase().as_str() {
        "space" => return Some(Space),
        "tab" => return Some(Tab),
        "esc" | "escape" => return Some(Escape),
        _ => {}
    }
    let mut chars = name.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    let c = c.to_ascii_uppercase();
    match c {
        'A'..='Z' => Some(LETTERS[(c as u8 - b'A') as usize]),
        '0'..='9' => Some(DIGITS[(c as u8 - b'0') as usize]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Args, ArgsError> {
        parse(s.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn headless_options_parse() {
        let a = args("scenarios/swap.json --screenshot out.png --frames 30 --keys R --keys T@5")
            .expect("valid");
        assert_eq!(a.file, Some(PathBuf::from("scenarios/swap.json")));
        assert_eq!(a.frames, 30);
        assert_eq!(
            a.keys,
            vec![
                ScriptKey {
                    frame: 0,
                    key: KeyCode::R
                },
                ScriptKey {
                    frame: 5,
                    key: KeyCode::T
                }
            ]
        );
    }

    #[test]
    fn mistakes_are_one_line_errors() {
        for bad in [
            "--scene 4d",
            "--frames 0",
            "--frames",
            "--keys R",
            "--screenshot a.png --keys Foo",
            "a.json b.json",
            "--size 10",
            "--bogus",
        ] {
            match args(bad) {
                Err(ArgsError::Bad(m)) => assert!(!m.contains('\n'), "{m}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
