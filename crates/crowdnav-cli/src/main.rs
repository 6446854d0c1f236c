//! The `crowdnav` command line: build navigation meshes from level files, find exact
//! paths for agents of any radius, and draw both.
//!
//! Exit codes: 0 success, 2 bad input (with a one-line message on stderr), 1 any other
//! failure (an output file that cannot be written, a path query that found no path).

/// `println!` for the command's results: see [`output::say`].
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::say(format_args!($($arg)*))
    };
}

mod bench_cmd;
mod output;
mod path_cmd;
mod queries;
mod raster;
mod run_cmd;
mod svg;

use anyhow::Context;
use clap::{Parser, Subcommand};
use crowdnav::mesh::{read_walls, NavMesh};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "crowdnav",
    version,
    about = "Navigation meshes, exact paths and crowds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the navigation mesh of a level and report on it.
    Mesh(MeshArgs),
    /// Find the shortest path for a disc of some radius, or a batch of them.
    ///
    /// Found paths go to stdout; a query without a path says why on stderr (in the
    /// `--json` line with --json) and the exit code is 1.
    Path(path_cmd::PathArgs),
    /// Run a scenario file: agents follow their paths and avoid each other.
    Run(run_cmd::RunArgs),
    /// Run the seed demo: 32 entities through circle, swap, groups, blocks, lines.
    Demo(run_cmd::DemoArgs),
    /// Time the steps of a scenario on one or more thread counts (crowdnav alone).
    Bench(bench_cmd::BenchArgs),
}

#[derive(clap::Args)]
struct MeshArgs {
    /// Level file: world JSON (.json), Polyanya mesh (.mesh) or MovingAI map (.map), or
    /// a baked mesh (.cnmesh, see --save).
    world: PathBuf,
    /// Save the built mesh to this file (a baked mesh, conventionally `.cnmesh`), which
    /// every command reading a level loads without building it again; the file is read
    /// back once to check it and to time the load.
    #[arg(long, value_name = "FILE.cnmesh")]
    save: Option<PathBuf>,
    /// Draw the mesh (walkable triangles and walls) to this SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// A failure, and whether the user's input was at fault (exit code 2) or not (1).
enum Failure {
    BadInput(anyhow::Error),
    Other(anyhow::Error),
    /// Exit code 1, the reason already printed (a path query that found no path).
    Quiet,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = match cli.command {
        Command::Mesh(args) => mesh(&args),
        Command::Path(args) => path_cmd::run(&args),
        Command::Run(args) => run_cmd::run(&args),
        Command::Demo(args) => run_cmd::demo(&args),
        Command::Bench(args) => bench_cmd::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::BadInput(e)) => {
            eprintln!("crowdnav: {}", one_line(&e));
            ExitCode::from(2)
        }
        Err(Failure::Other(e)) => {
            eprintln!("crowdnav: {}", one_line(&e));
            ExitCode::from(1)
        }
        Err(Failure::Quiet) => ExitCode::from(1),
    }
}

/// Help and version go out as clap prints them; a usage error becomes one line on
/// stderr and exit code 2, like every other bad input.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.use_stderr() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    eprintln!("crowdnav: {} (see crowdnav --help)", usage_message(&e));
    ExitCode::from(2)
}

/// The one line for a usage error: clap's first line, with the arguments it lists
/// below it (a missing `--to`) named on that line.
fn usage_message(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("invalid arguments");
    let message = first.strip_prefix("error: ").unwrap_or(first);
    match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::Strings(args)) if message.ends_with(':') => {
            format!("{message} {}", args.join(", "))
        }
        _ => message.to_owned(),
    }
}

/// The error and its causes on one line; a cause already spelled out by the message
/// before it is not repeated.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line.replace('\n', " ")
}

#[derive(serde::Serialize)]
struct MeshReport {
    world: String,
    vertices: usize,
    triangles: usize,
    walkable_triangles: usize,
    walls: usize,
    walkable_area: f64,
    /// Building the mesh (0 for a baked mesh, which is loaded instead).
    build_ms: f64,
    /// Loading the baked mesh: the input, or the file `--save` wrote, read back.
    #[serde(skip_serializing_if = "Option::is_none")]
    load_ms: Option<f64>,
    /// The file `--save` wrote and its size.
    #[serde(skip_serializing_if = "Option::is_none")]
    saved: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    saved_bytes: Option<u64>,
}

/// The extension of baked meshes ([`NavMesh::save`]).
const BAKED_EXTENSION: &str = "cnmesh";

/// How [`load_mesh`] got its mesh, with the time it took in milliseconds.
#[derive(Clone, Copy)]
enum Made {
    Built(f64),
    Loaded(f64),
}

/// Reads a level file (by extension) and builds its mesh, or loads a baked mesh
/// (`.cnmesh`); returns it with how long that took. Any failure is bad input.
fn load_mesh(world: &std::path::Path) -> Result<(NavMesh, Made), Failure> {
    let baked = world
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(BAKED_EXTENSION));
    if baked {
        let file = std::fs::File::open(world)
            .with_context(|| format!("cannot read {}", world.display()))
            .map_err(Failure::BadInput)?;
        let start = Instant::now();
        let mesh = NavMesh::load(file)
            .with_context(|| format!("{}", world.display()))
            .map_err(Failure::BadInput)?;
        return Ok((mesh, Made::Loaded(start.elapsed().as_secs_f64() * 1e3)));
    }
    let walls = read_walls(world).map_err(|e| Failure::BadInput(e.into()))?;
    let start = Instant::now();
    let mesh = NavMesh::from_walls(&walls)
        .with_context(|| format!("{}", world.display()))
        .map_err(Failure::BadInput)?;
    Ok((mesh, Made::Built(start.elapsed().as_secs_f64() * 1e3)))
}

/// Writes `mesh` to `path` as a baked mesh; reads it back and returns the file's size
/// and the time loading it took, in milliseconds.
fn save_mesh(mesh: &NavMesh, path: &std::path::Path) -> Result<(u64, f64), Failure> {
    let bytes = mesh.to_bytes();
    std::fs::write(path, &bytes)
        .with_context(|| format!("cannot write {}", path.display()))
        .map_err(Failure::Other)?;
    let start = Instant::now();
    let file = std::fs::File::open(path)
        .with_context(|| format!("cannot read back {}", path.display()))
        .map_err(Failure::Other)?;
    NavMesh::load(file)
        .with_context(|| format!("{} does not load back", path.display()))
        .map_err(Failure::Other)?;
    Ok((bytes.len() as u64, start.elapsed().as_secs_f64() * 1e3))
}

fn mesh(args: &MeshArgs) -> Result<(), Failure> {
    let (mesh, made) = load_mesh(&args.world)?;
    let (build_ms, mut load_ms) = match made {
        Made::Built(ms) => (ms, None),
        Made::Loaded(ms) => (0.0, Some(ms)),
    };
    let (mut saved, mut saved_bytes) = (None, None);
    if let Some(path) = &args.save {
        let (size, ms) = save_mesh(&mesh, path)?;
        saved = Some(path.display().to_string());
        saved_bytes = Some(size);
        load_ms = Some(ms);
    }
    let report = MeshReport {
        world: args.world.display().to_string(),
        vertices: mesh.vertices().len(),
        triangles: mesh.triangle_count(),
        walkable_triangles: mesh.walkable_triangles().count(),
        walls: mesh.walls().count(),
        walkable_area: mesh.walkable_area(),
        build_ms,
        load_ms,
        saved,
        saved_bytes,
    };
    if args.json {
        let text = serde_json::to_string(&report).map_err(|e| Failure::Other(e.into()))?;
        say!("{text}");
    } else {
        say!("world:          {}", report.world);
        say!("vertices:       {}", report.vertices);
        say!(
            "triangles:      {} ({} walkable, {} blocked)",
            report.triangles,
            report.walkable_triangles,
            report.triangles - report.walkable_triangles
        );
        say!("walls:          {}", report.walls);
        say!("walkable area:  {:.3} m²", report.walkable_area);
        if matches!(made, Made::Built(_)) {
            say!("build time:     {:.2} ms", report.build_ms);
        }
        if let (Some(path), Some(size)) = (&report.saved, report.saved_bytes) {
            say!("saved:          {path} ({size} bytes)");
        }
        if let Some(ms) = report.load_ms {
            say!("load time:      {ms:.2} ms");
        }
    }
    if let Some(path) = &args.svg {
        std::fs::write(path, svg::mesh_svg(&mesh))
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(Failure::Other)?;
        run_cmd::wrote(path);
    }
    Ok(())
}
