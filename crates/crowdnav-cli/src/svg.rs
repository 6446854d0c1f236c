//! SVG drawings of meshes. Coordinates are world coordinates (y grows downwards on
//! screen, as in the map formats).

use crowdnav::mesh::NavMesh;
use glam::Vec2;
use std::fmt::Write;

/// The walkable triangles (light fill, thin edges) and the walls (thick) of `mesh`.
pub fn mesh_svg(mesh: &NavMesh) -> String {
    let (lo, hi) = mesh.vertices().iter().fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(lo, hi), &v| (lo.min(v), hi.max(v)),
    );
    let size = (hi - lo).max(Vec2::splat(1e-3));
    let margin = size.max_element() * 0.02;
    let stroke = size.max_element() / 800.0;
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
    let _ = writeln!(out, "</g>\n</svg>");
    out
}
