//! `crowdnav-view`: the interactive viewer. The seed demo in 2D (the default), the
//! same world in 3D, a space scene of ships among planets, scenario and level files,
//! and a headless mode that saves the frame it rendered:
//!
//! ```text
//! crowdnav-view [FILE] [--scene 2d|3d|space] [--method orca|antigravity|swarm]
//!               [--screenshot FILE.png --frames N [--keys "R T@60"]]
//! ```

mod app;
mod args;
mod capture;
mod crowd;
mod draw2d;
mod draw3d;
mod edge;
mod input;
mod layout;
mod space;

use args::{Args, ArgsError};
use crowd::Crowd;

/// Seconds of simulated time per frame in a headless run, whatever the frame rate.
const HEADLESS_FRAME: f32 = 1.0 / 60.0;

fn main() {
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(ArgsError::Help) => {
            println!("{}", args::USAGE);
            return;
        }
        Err(ArgsError::Bad(m)) => fail(&m),
    };
    let crowd = match &args.file {
        Some(path) => Crowd::open(path, args.method),
        None => Crowd::demo(args.method),
    };
    let crowd = crowd.unwrap_or_else(|m| fail(&m));
    let conf = macroquad::window::Conf {
        window_title: "crowdnav".to_owned(),
        window_width: args.size.0,
        window_height: args.size.1,
        high_dpi: false,
        sample_count: if args.screenshot.is_some() { 1 } else { 4 },
        ..Default::default()
    };
    macroquad::Window::from_config(conf, run(crowd, args));
}

/// One line on stderr, exit code 2.
fn fail(message: &str) -> ! {
    let line = message.replace('\n', " ");
    eprintln!("crowdnav-view: {line}");
    std::process::exit(2)
}

async fn run(crowd: Crowd, args: Args) {
    let mut app = app::App::new(crowd, args.scene);
    let headless = args.screenshot.is_some();
    let mut frame = 0u64;
    loop {
        let keys = input::keys_this_frame(&args.keys, frame, !headless);
        app.keys(&keys);
        // The mouse works headless too (an X server's pointer, moved by a test).
        app.mouse();
        app.drive_player(input::held_direction(!headless));
        let dt = if headless {
            HEADLESS_FRAME
        } else {
            macroquad::time::get_frame_time().min(0.1)
        };
        app.update(dt);
        app.draw();
        if let Some(path) = &args.screenshot {
            if frame + 1 >= args.frames {
                match capture::capture(path) {
                    Ok(()) => std::process::exit(0),
                    Err(m) => {
                        eprintln!("crowdnav-view: {m}");
                        std::process::exit(1)
                    }
                }
            }
        }
        frame += 1;
        macroquad::window::next_frame().await;
    }
}
