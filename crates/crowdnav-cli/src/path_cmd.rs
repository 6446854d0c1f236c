//! `crowdnav path`: one query (text, JSON or SVG) or a CSV batch run in parallel.

use crate::{load_mesh, svg, Failure};
use anyhow::{anyhow, Context};
use crowdnav::mesh::{Location, NavMesh, TriangleId};
use crowdnav::path::{Path, PathError, PathQuery};
use glam::Vec2;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct PathArgs {
    /// Level file: world JSON (.json), Polyanya mesh (.mesh) or MovingAI map (.map), or
    /// a baked mesh (.cnmesh, from `crowdnav mesh LEVEL --save FILE.cnmesh`).
    world: PathBuf,
    /// Start point, `X,Y`.
    #[arg(long, value_name = "X,Y", value_parser = parse_point, allow_hyphen_values = true,
          required_unless_present = "queries", conflicts_with = "queries")]
    from: Option<Vec2>,
    /// Goal point, `X,Y`.
    #[arg(long, value_name = "X,Y", value_parser = parse_point, allow_hyphen_values = true,
          required_unless_present = "queries", conflicts_with = "queries")]
    to: Option<Vec2>,
    /// Agent radius (single query).
    #[arg(
        long,
        default_value_t = 0.0,
        allow_hyphen_values = true,
        conflicts_with = "queries"
    )]
    radius: f32,
    /// Batch of queries: CSV with header `sx,sy,gx,gy,radius`, one query a line.
    #[arg(long, value_name = "FILE.csv")]
    queries: Option<PathBuf>,
    /// Draw the mesh, the corridor and the path to this SVG file (single query).
    #[arg(long, value_name = "FILE", conflicts_with = "queries")]
    svg: Option<PathBuf>,
    /// Print one JSON object a query, one a line.
    #[arg(long)]
    json: bool,
}

fn parse_point(text: &str) -> Result<Vec2, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [x, y] = parts.as_slice() else {
        return Err(format!("expected X,Y, found {text:?}"));
    };
    let num = |s: &str| {
        s.parse::<f32>()
            .map_err(|_| format!("{s:?} is not a number"))
    };
    Ok(Vec2::new(num(x)?, num(y)?))
}

/// The JSON form of one answer.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Answer {
    Found {
        found: bool,
        length: f64,
        points: Vec<[f32; 2]>,
    },
    NotFound {
        found: bool,
        reason: String,
    },
}

impl Answer {
    fn of(result: &Result<Path, PathError>) -> Answer {
        match result {
            Ok(path) => Answer::Found {
                found: true,
                length: path.length(),
                points: path.points().iter().map(|p| p.to_array()).collect(),
            },
            Err(e) => Answer::NotFound {
                found: false,
                reason: e.to_string(),
            },
        }
    }
}

pub fn run(args: &PathArgs) -> Result<(), Failure> {
    // Read the batch before the (slower) mesh build, so a bad CSV fails fast.
    let queries = match (&args.queries, args.from, args.to) {
        (Some(file), _, _) => read_queries(file)?,
        (None, Some(start), Some(goal)) => vec![PathQuery {
            start,
            goal,
            radius: args.radius,
        }],
        _ => {
            return Err(Failure::BadInput(anyhow!(
                "give --from and --to, or --queries"
            )))
        }
    };
    let (mesh, _) = load_mesh(&args.world)?;
    let results = mesh.find_paths(&queries);
    let mut not_found = 0;
    for (query, result) in queries.iter().zip(&results) {
        not_found += usize::from(result.is_err());
        if args.json {
            let line =
                serde_json::to_string(&Answer::of(result)).map_err(|e| Failure::Other(e.into()))?;
            say!("{line}");
        } else {
            match result {
                Ok(path) => say!("{}", found_line(query, path)),
                Err(e) => eprintln!("crowdnav: {}: {e}", query_head(query)),
            }
        }
    }
    if let (Some(file), Some(Ok(path))) = (&args.svg, results.first()) {
        let corridor = corridor(&mesh, path);
        std::fs::write(file, svg::path_svg(&mesh, path, &corridor))
            .with_context(|| format!("cannot write {}", file.display()))
            .map_err(Failure::Other)?;
        crate::run_cmd::wrote(file);
    }
    match not_found {
        0 => Ok(()),
        // A single query's reason is already on stderr (or in the JSON line).
        _ if queries.len() == 1 => Err(Failure::Quiet),
        n => Err(Failure::Other(anyhow!(
            "{n} of {} queries found no path",
            queries.len()
        ))),
    }
}

/// `(sx, sy) -> (gx, gy) r=R`: the query, as the answer lines start.
fn query_head(q: &PathQuery) -> String {
    format!(
        "({}, {}) -> ({}, {}) r={}",
        q.start.x, q.start.y, q.goal.x, q.goal.y, q.radius
    )
}

/// One found path on one line: its length, how many obstacle corners it turns around
/// (each an arc, for a disc) and the points of its polyline, start and goal included.
fn found_line(q: &PathQuery, path: &Path) -> String {
    let points: Vec<String> = path
        .points()
        .iter()
        .map(|p| format!("({}, {})", p.x, p.y))
        .collect();
    let corners = path.corners().len();
    format!(
        "{}: length {:.6}, turns at {corners} corner{}, {} points: {}",
        query_head(q),
        path.length(),
        if corners == 1 { "" } else { "s" },
        points.len(),
        points.join(" ")
    )
}

/// The triangles the path passes through, found by locating points along it.
fn corridor(mesh: &NavMesh, path: &Path) -> Vec<TriangleId> {
    let mut out: Vec<TriangleId> = Vec::new();
    let step = (path.radius().max(0.05) * 0.5).max(1e-3);
    for piece in path.pieces() {
        let n = ((piece.length() as f32 / step).ceil() as usize).clamp(1, 10_000);
        for k in 0..=n {
            if let Location::Walkable(t) = mesh.locate(piece.point_at(k as f32 / n as f32)) {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// Reads a batch CSV (see [`crate::queries::parse_query_csv`]). Errors name the file
/// and the line.
fn read_queries(file: &std::path::Path) -> Result<Vec<PathQuery>, Failure> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read {}", file.display()))
        .map_err(Failure::BadInput)?;
    crate::queries::parse_query_csv(&text)
        .with_context(|| format!("{}", file.display()))
        .map_err(Failure::BadInput)
}
