//! SVG drawings of meshes and paths. Coordinates are world coordinates (y grows downwards on
//! screen, as in the map formats).

use crowdnav::mesh::{NavMesh, TriangleId};
use crowdnav::path::{Path, PathPiece};
use crowdnav::scenario::MeasurementLine;
use crowdnav::world::World;
use glam::Vec2;
use std::fmt::Write;

/// The walkable triangles (light fill, thin edges) and the walls (thick) of `mesh`.
pub fn mesh_svg(mesh: &NavMesh) -> String {
    let mut out = begin(mesh);
    draw_mesh(&mut out, mesh);
    finish(out)
}

/// The mesh, the corridor (the triangles the path crosses, shaded), the path (segments
/// and arcs), circles of the agent's radius at its corners, and start and goal.
pub fn path_svg(mesh: &NavMesh, path: &Path, corridor: &[TriangleId]) -> String {
    let mut out = begin(mesh);
    let stroke = stroke_width(mesh);
    draw_mesh(&mut out, mesh);
    let _ = writeln!(out, r##"<g fill="#ffe9a8" fill-opacity="0.8">"##);
    for &t in corridor {
        let [a, b, c] = mesh.triangle_points(t);
        let _ = writeln!(
            out,
            r#"<path d="M{} {}L{} {}L{} {}Z"/>"#,
            a.x, a.y, b.x, b.y, c.x, c.y
        );
    }
    let _ = writeln!(out, "</g>");
    let r = path.radius();
    if r > 0.0 {
        let _ = writeln!(
            out,
            r##"<g fill="none" stroke="#c08040" stroke-width="{stroke}" stroke-dasharray="{} {}">"##,
            stroke * 4.0,
            stroke * 3.0
        );
        for c in path.corners() {
            let _ = writeln!(
                out,
                r#"<circle cx="{}" cy="{}" r="{r}"/>"#,
                c.position.x, c.position.y
            );
        }
        let _ = writeln!(out, "</g>");
    }
    let start = path.start();
    let mut d = format!("M{} {}", start.x, start.y);
    for piece in path.pieces() {
        match *piece {
            PathPiece::Line { to, .. } => {
                let _ = write!(d, " L{} {}", to.x, to.y);
            }
            PathPiece::Arc {
                radius, to, sweep, ..
            } => {
                // World coordinates are drawn unflipped, so a positive (counter-
                // clockwise) sweep is SVG's positive-angle direction.
                let large = u8::from(sweep.abs() > std::f32::consts::PI);
                let positive = u8::from(sweep > 0.0);
                let _ = write!(
                    d,
                    " A {radius} {radius} 0 {large} {positive} {} {}",
                    to.x, to.y
                );
            }
        }
    }
    let _ = writeln!(
        out,
        r##"<path d="{d}" fill="none" stroke="#d02020" stroke-width="{}" stroke-linejoin="round"/>"##,
        stroke * 3.0
    );
    for (p, colour) in [(path.start(), "#20a040"), (path.goal(), "#2040d0")] {
        let _ = writeln!(
            out,
            r#"<circle cx="{}" cy="{}" r="{}" fill="{colour}"/>"#,
            p.x,
            p.y,
            (stroke * 6.0).max(r)
        );
    }
    finish(out)
}

fn bounds(mesh: &NavMesh) -> (Vec2, Vec2) {
    mesh.vertices().iter().fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(lo, hi), &v| (lo.min(v), hi.max(v)),
    )
}

fn stroke_width(mesh: &NavMesh) -> f32 {
    let (lo, hi) = bounds(mesh);
    stroke_of_bounds(lo, hi)
}

fn stroke_of_bounds(lo: Vec2, hi: Vec2) -> f32 {
    (hi - lo).max(Vec2::splat(1e-3)).max_element() / 800.0
}

/// The `<svg>` element and background over the mesh's bounding box.
fn begin(mesh: &NavMesh) -> String {
    let (lo, hi) = bounds(mesh);
    begin_bounds(lo, hi)
}

/// The `<svg>` element and background over the box `lo..hi`.
fn begin_bounds(lo: Vec2, hi: Vec2) -> String {
    let size = (hi - lo).max(Vec2::splat(1e-3));
    let margin = size.max_element() * 0.02;
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="{} {} {} {}" width="1000" height="{}">"#,
        lo.x - margin,
        lo.y - margin,
        size.x + 2.0 * margin,
        size.y + 2.0 * margin,
        (1000.0 * (size.y + 2.0 * margin) / (size.x + 2.0 * margin)).round()
    );
    let _ = writeln!(
        out,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#d8d8d8"/>"##,
        lo.x - margin,
        lo.y - margin,
        size.x + 2.0 * margin,
        size.y + 2.0 * margin
    );
    out
}

fn draw_mesh(out: &mut String, mesh: &NavMesh) {
    let stroke = stroke_width(mesh);
    let _ = writeln!(
        out,
        r##"<g fill="#f4f8ff" stroke="#a8b8d0" stroke-width="{stroke}" stroke-linejoin="round">"##
    );
    for t in mesh.walkable_triangles() {
        let [a, b, c] = mesh.triangle_points(t);
        let _ = writeln!(
            out,
            r#"<path d="M{} {}L{} {}L{} {}Z"/>"#,
            a.x, a.y, b.x, b.y, c.x, c.y
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(
        out,
        r##"<g stroke="#202020" stroke-width="{}" stroke-linecap="round">"##,
        stroke * 3.0
    );
    for s in mesh.walls() {
        let _ = writeln!(
            out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#,
            s.a.x, s.a.y, s.b.x, s.b.y
        );
    }
    let _ = writeln!(out, "</g>");
}

/// Measurement lines in their colour, each named beside its middle.
fn draw_lines(out: &mut String, lines: &[MeasurementLine], stroke: f32) {
    if lines.is_empty() {
        return;
    }
    let colour = crate::raster::LINE_COLOUR;
    let _ = writeln!(
        out,
        r#"<g class="measurement-lines" stroke="{colour}" stroke-width="{}" stroke-linecap="round">"#,
        stroke * 3.0
    );
    for line in lines {
        let _ = writeln!(
            out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#,
            line.from.x, line.from.y, line.to.x, line.to.y
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(
        out,
        r#"<g fill="{colour}" font-family="sans-serif" font-size="{}">"#,
        stroke * 16.0
    );
    for line in lines {
        let mid = (line.from + line.to) * 0.5;
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}">{}</text>"#,
            mid.x + stroke * 6.0,
            mid.y - stroke * 6.0,
            xml_escape(&line.name)
        );
    }
    let _ = writeln!(out, "</g>");
}

/// `text` with the characters that XML reserves written as entities.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn finish(mut out: String) -> String {
    out.push_str("</svg>\n");
    out
}

/// A world after a run: the mesh (when it has one), the measurement lines with their
/// names, each agent's trail (sampled positions), its goal, and the agents themselves
/// (red: collided since they last arrived), with moving obstacles in grey.
pub fn world_svg(world: &World, trails: &[Vec<Vec2>], lines: &[MeasurementLine]) -> String {
    let (lo, hi) = crate::raster::world_bounds(world, lines);
    let stroke = stroke_of_bounds(lo, hi);
    let mut out = begin_bounds(lo, hi);
    if let Some(mesh) = world.mesh() {
        draw_mesh(&mut out, mesh);
    }
    let _ = writeln!(
        out,
        r##"<g fill="none" stroke="#6080c0" stroke-opacity="0.6" stroke-width="{stroke}">"##
    );
    for trail in trails.iter().filter(|t| t.len() >= 2) {
        let mut d = String::new();
        for (k, p) in trail.iter().enumerate() {
            let _ = write!(d, "{}{} {}", if k == 0 { "M" } else { " L" }, p.x, p.y);
        }
        let _ = writeln!(out, r#"<path d="{d}"/>"#);
    }
    let _ = writeln!(out, "</g>");
    draw_lines(&mut out, lines, stroke);
    for a in world.agents() {
        let goal = crate::raster::goal_point(world, a);
        let _ = writeln!(
            out,
            r##"<circle cx="{}" cy="{}" r="{}" fill="none" stroke="#20a040" stroke-width="{stroke}"/>"##,
            goal.x,
            goal.y,
            a.radius * 0.4
        );
    }
    for o in world.obstacles() {
        let _ = writeln!(
            out,
            r##"<circle cx="{}" cy="{}" r="{}" fill="#808080"/>"##,
            o.position.x, o.position.y, o.radius
        );
    }
    for a in world.agents() {
        let fill = if a.has_collided() {
            "#d02020"
        } else {
            "#2050d0"
        };
        let _ = writeln!(
            out,
            r#"<circle cx="{}" cy="{}" r="{}" fill="{fill}" fill-opacity="0.85"/>"#,
            a.position.x, a.position.y, a.radius
        );
    }
    finish(out)
}
