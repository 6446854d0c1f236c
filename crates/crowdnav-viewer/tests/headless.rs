//! The viewer run headless under Xvfb: the 2D demo, the 3D view, the space scene and a
//! scenario file each render, and the saved PNG shows what it should. Skipped, with a
//! message, where `xvfb-run` is not installed (`.ci/viewer-test.sh` installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The agent colours of the views: blue, and red after a collision.
const AGENT: [u8; 3] = [60, 150, 255];
const COLLIDED: [u8; 3] = [230, 51, 51];
/// The sun of the space scene.
const SUN: [u8; 3] = [255, 217, 77];

fn xvfb_run() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("xvfb-run"))
        .find(|p| p.is_file())
}

fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer-headless");
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Runs the viewer under `xvfb-run` and returns the RGB pixels of its screenshot.
fn shoot(xvfb: &Path, name: &str, args: &[&str]) -> (u32, u32, Vec<u8>) {
    let png = out_dir().join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    let out = Command::new(xvfb)
        .args(["-a", "-s", "-screen 0 1024x768x24"])
        .arg(env!("CARGO_BIN_EXE_crowdnav-view"))
        .args(args)
        .arg("--screenshot")
        .arg(&png)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("xvfb-run starts");
    assert!(
        out.status.success(),
        "{name}: viewer failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let dec = png::Decoder::new(std::fs::File::open(&png).expect("screenshot written"));
    let mut r = dec.read_info().expect("a PNG");
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).expect("a frame");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let rgb = buf
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, rgb)
}

fn near(p: &[u8], c: [u8; 3], tol: i32) -> bool {
    p.iter()
        .zip(c)
        .all(|(&a, b)| (i32::from(a) - i32::from(b)).abs() <= tol)
}

/// Connected blobs (4-neighbours) of pixels matching any of `colours`, at least
/// `min_size` pixels each.
fn blobs(w: u32, h: u32, rgb: &[u8], colours: &[[u8; 3]], min_size: usize) -> Vec<usize> {
    let (w, h) = (w as usize, h as usize);
    let hit: Vec<bool> = rgb
        .chunks_exact(3)
        .map(|p| colours.iter().any(|&c| near(p, c, 24)))
        .collect();
    let mut seen = vec![false; w * h];
    let mut sizes = Vec::new();
    for start in 0..w * h {
        if !hit[start] || seen[start] {
            continue;
        }
        let (mut stack, mut size) = (vec![start], 0);
        seen[start] = true;
        while let Some(i) = stack.pop() {
            size += 1;
            let (x, y) = (i % w, i / w);
            let mut push = |j: usize| {
                if hit[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            };
            if x > 0 {
                push(i - 1);
            }
            if x + 1 < w {
                push(i + 1);
            }
            if y > 0 {
                push(i - w);
            }
            if y + 1 < h {
                push(i + w);
            }
        }
        if size >= min_size {
            sizes.push(size);
        }
    }
    sizes
}

fn distinct_colours(rgb: &[u8]) -> usize {
    let mut v: Vec<[u8; 3]> = rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

#[test]
fn the_viewer_renders_every_scene_headless() {
    let Some(xvfb) = xvfb_run() else {
        eprintln!(
            "SKIPPED the_viewer_renders_every_scene_headless: xvfb-run is not installed \
             (run .ci/viewer-test.sh, which installs it)"
        );
        return;
    };
    // The 2D demo: a key loads the 32 entities; R sends them round the circle.
    let (w, h, rgb) = shoot(&xvfb, "2d", &["--frames", "20", "--keys", "R"]);
    let agents = blobs(w, h, &rgb, &[AGENT, COLLIDED], 40);
    // 32, give or take 4 blobs that touch and merge or hide under the text: a regression
    // guard. Measured: 32 (and 32 for swap.json below).
    assert!(
        (28..=36).contains(&agents.len()),
        "2D: {} agent blobs, expected about 32 ({agents:?})",
        agents.len()
    );
    // Before any key: the room, no agents.
    let (w, h, rgb) = shoot(&xvfb, "2d-empty", &["--frames", "3"]);
    assert!(blobs(w, h, &rgb, &[AGENT, COLLIDED], 40).is_empty());
    // A regression guard against a blank frame. Measured: 78 colours.
    assert!(distinct_colours(&rgb) > 4, "2D empty: a uniform image");

    // A scenario file: its 32 agents from the start, debug drawing on.
    let (w, h, rgb) = shoot(
        &xvfb,
        "swap",
        &["../../scenarios/swap.json", "--frames", "10"],
    );
    let agents = blobs(w, h, &rgb, &[AGENT, COLLIDED], 40);
    assert!(
        (28..=36).contains(&agents.len()),
        "swap.json: {} agent blobs",
        agents.len()
    );

    // The 3D view of the demo.
    let (w, h, rgb) = shoot(
        &xvfb,
        "3d",
        &["--scene", "3d", "--frames", "20", "--keys", "G"],
    );
    let agent_px: usize = blobs(w, h, &rgb, &[AGENT, COLLIDED], 1).iter().sum();
    // Floors against agents or shading gone missing: about 47 px for each of the 32
    // agents, and a few colours. Measured: 13 208 px, 44 colours.
    assert!(agent_px > 1500, "3D: only {agent_px} agent pixels");
    assert!(distinct_colours(&rgb) > 8, "3D: too few colours");

    // The space scene: a sun and ships.
    let (w, h, rgb) = shoot(&xvfb, "space", &["--scene", "space", "--frames", "60"]);
    let sun: usize = blobs(w, h, &rgb, &[SUN], 1).iter().sum();
    // Floors against a missing sun or a flat frame. Measured: 2 647 px, 68 colours.
    assert!(sun > 300, "space: sun of {sun} pixels");
    assert!(distinct_colours(&rgb) > 8, "space: too few colours");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let bin = env!("CARGO_BIN_EXE_crowdnav-view");
    let dir = out_dir();
    let garbage = dir.join("garbage.json");
    std::fs::write(&garbage, "{ not json").expect("write");
    let bad_map = dir.join("bad.map");
    std::fs::write(&bad_map, "type octile\nheight x\n").expect("write");
    let missing = dir.join("missing.mesh");
    for args in [
        vec![garbage.to_string_lossy().into_owned()],
        vec![bad_map.to_string_lossy().into_owned()],
        vec![missing.to_string_lossy().into_owned()],
        vec!["level.txt".to_owned()],
        vec!["--scene".to_owned(), "4d".to_owned()],
        vec!["--frames".to_owned(), "many".to_owned()],
    ] {
        let out = Command::new(bin).args(&args).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
