//! Animated GIFs of a running world: the mesh drawn once as a background, the agents
//! drawn on it every few steps, in a small fixed palette (no anti-aliasing, so every
//! pixel is a palette colour and frames need no quantisation).

use crowdnav::scenario::MeasurementLine;
use crowdnav::world::{Agent, Goal, World};
use glam::Vec2;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

/// The palette: every colour drawn, in index order.
const PALETTE: [[u8; 3]; 8] = [
    [216, 216, 216], // 0 outside / blocked
    [244, 248, 255], // 1 walkable
    [32, 32, 32],    // 2 walls
    [32, 80, 208],   // 3 agent
    [208, 32, 32],   // 4 agent after a collision
    [128, 128, 128], // 5 moving obstacle
    [32, 160, 64],   // 6 goal marks
    [224, 112, 0],   // 7 measurement lines and their names
];

/// The colour of measurement lines in pictures (palette entry 7), as SVG writes it.
pub const LINE_COLOUR: &str = "#e07000";

/// The box a world is drawn in: its mesh, or its agents, goals and obstacles, and the
/// measurement lines, with a margin.
pub fn world_bounds(world: &World, lines: &[MeasurementLine]) -> (Vec2, Vec2) {
    let mut lo = Vec2::splat(f32::INFINITY);
    let mut hi = Vec2::splat(f32::NEG_INFINITY);
    let mut add = |p: Vec2, r: f32| {
        if p.is_finite() {
            lo = lo.min(p - Vec2::splat(r));
            hi = hi.max(p + Vec2::splat(r));
        }
    };
    if let Some(mesh) = world.mesh() {
        for &v in mesh.vertices() {
            add(v, 0.0);
        }
    } else {
        for a in world.agents() {
            add(a.position, a.radius);
            add(goal_point(world, a), a.radius);
        }
        for o in world.obstacles() {
            add(o.position, o.radius);
        }
    }
    for line in lines {
        add(line.from, 0.0);
        add(line.to, 0.0);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return (Vec2::splat(-1.0), Vec2::splat(1.0));
    }
    let margin = (hi - lo).max_element().max(1.0) * 0.03;
    (lo - Vec2::splat(margin), hi + Vec2::splat(margin))
}

/// Where an agent's goal is now.
pub fn goal_point(world: &World, a: &Agent) -> Vec2 {
    match a.goal {
        Goal::Point(p) => p,
        Goal::Agent(id) => world.agent(id).map_or(a.position, |b| b.position),
        Goal::Obstacle(id) => world
            .obstacles()
            .get(id.index())
            .map_or(a.position, |o| o.position),
    }
}

fn paint(index: usize) -> Paint<'static> {
    let [r, g, b] = PALETTE[index];
    let mut p = Paint::default();
    p.set_color(Color::from_rgba8(r, g, b, 255));
    p.anti_alias = false;
    p
}

/// Records frames of a world into a GIF file.
pub struct GifRecorder {
    encoder: gif::Encoder<BufWriter<File>>,
    background: Pixmap,
    transform: Transform,
    scale: f32,
    /// Centiseconds each frame is shown.
    delay: u16,
}

impl GifRecorder {
    /// Starts a GIF of `world` at most `width` pixels wide, with the measurement
    /// `lines` and their names drawn on the background; each frame is shown for
    /// `seconds_per_frame` (GIF delays are in hundredths of a second).
    ///
    /// # Errors
    /// When the file cannot be created.
    pub fn create(
        path: &Path,
        world: &World,
        lines: &[MeasurementLine],
        width: u32,
        seconds_per_frame: f32,
    ) -> anyhow::Result<GifRecorder> {
        let (lo, hi) = world_bounds(world, lines);
        let size = (hi - lo).max(Vec2::splat(1e-3));
        let scale = width as f32 / size.x.max(size.y * 0.5);
        let w = ((size.x * scale).round() as u32).clamp(16, 2048);
        let h = ((size.y * scale).round() as u32).clamp(16, 2048);
        let transform = Transform::from_row(scale, 0.0, 0.0, scale, -lo.x * scale, -lo.y * scale);
        let mut background =
            Pixmap::new(w, h).ok_or_else(|| anyhow::anyhow!("cannot make a {w}x{h} image"))?;
        background.fill(Color::from_rgba8(
            PALETTE[0][0],
            PALETTE[0][1],
            PALETTE[0][2],
            255,
        ));
        if let Some(mesh) = world.mesh() {
            let mut pb = PathBuilder::new();
            for t in mesh.walkable_triangles() {
                let [a, b, c] = mesh.triangle_points(t);
                pb.move_to(a.x, a.y);
                pb.line_to(b.x, b.y);
                pb.line_to(c.x, c.y);
                pb.close();
            }
            if let Some(p) = pb.finish() {
                background.fill_path(&p, &paint(1), FillRule::Winding, transform, None);
            }
            let mut pb = PathBuilder::new();
            for s in mesh.walls() {
                pb.move_to(s.a.x, s.a.y);
                pb.line_to(s.b.x, s.b.y);
            }
            if let Some(p) = pb.finish() {
                let stroke = Stroke {
                    width: (2.0 / scale).max(0.01),
                    ..Stroke::default()
                };
                background.stroke_path(&p, &paint(2), &stroke, transform, None);
            }
        } else if let Some(r) = Rect::from_xywh(0.0, 0.0, w as f32, h as f32) {
            background.fill_rect(r, &paint(1), Transform::identity(), None);
        }
        draw_lines(&mut background, lines, transform, scale);
        let file = File::create(path)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        let flat: Vec<u8> = PALETTE.iter().flatten().copied().collect();
        let mut encoder = gif::Encoder::new(BufWriter::new(file), w as u16, h as u16, &flat)?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        Ok(GifRecorder {
            encoder,
            background,
            transform,
            scale,
            delay: ((seconds_per_frame * 100.0).round() as u16).max(2),
        })
    }

    /// Draws the world as it is now and appends the frame.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn frame(&mut self, world: &World) -> anyhow::Result<()> {
        let mut pixmap = self.background.clone();
        let min_r = 1.5 / self.scale;
        let mut goals = PathBuilder::new();
        for a in world.agents() {
            let g = goal_point(world, a);
            let s = (a.radius * 0.3).max(min_r);
            goals.move_to(g.x - s, g.y);
            goals.line_to(g.x + s, g.y);
            goals.move_to(g.x, g.y - s);
            goals.line_to(g.x, g.y + s);
        }
        if let Some(p) = goals.finish() {
            let stroke = Stroke {
                width: (1.0 / self.scale).max(0.01),
                ..Stroke::default()
            };
            pixmap.stroke_path(&p, &paint(6), &stroke, self.transform, None);
        }
        let discs = |colour: usize, items: &mut dyn Iterator<Item = (Vec2, f32)>| {
            let mut pb = PathBuilder::new();
            for (c, r) in items {
                if c.is_finite() {
                    pb.push_circle(c.x, c.y, r.max(min_r));
                }
            }
            pb.finish().map(|p| (p, colour))
        };
        let shapes = [
            discs(
                5,
                &mut world.obstacles().iter().map(|o| (o.position, o.radius)),
            ),
            discs(
                3,
                &mut world
                    .agents()
                    .iter()
                    .filter(|a| !a.has_collided())
                    .map(|a| (a.position, a.radius)),
            ),
            discs(
                4,
                &mut world
                    .agents()
                    .iter()
                    .filter(|a| a.has_collided())
                    .map(|a| (a.position, a.radius)),
            ),
        ];
        for (path, colour) in shapes.into_iter().flatten() {
            pixmap.fill_path(
                &path,
                &paint(colour),
                FillRule::Winding,
                self.transform,
                None,
            );
        }
        let indices: Vec<u8> = pixmap
            .data()
            .chunks_exact(4)
            .map(|px| palette_index([px[0], px[1], px[2]]))
            .collect();
        let mut frame = gif::Frame {
            width: pixmap.width() as u16,
            height: pixmap.height() as u16,
            delay: self.delay,
            buffer: std::borrow::Cow::Owned(indices),
            ..gif::Frame::default()
        };
        frame.dispose = gif::DisposalMethod::Keep;
        self.encoder.write_frame(&frame)?;
        Ok(())
    }
}

/// Measurement lines in their colour, each with its name beside its middle.
fn draw_lines(pixmap: &mut Pixmap, lines: &[MeasurementLine], transform: Transform, scale: f32) {
    let mut pb = PathBuilder::new();
    for line in lines {
        pb.move_to(line.from.x, line.from.y);
        pb.line_to(line.to.x, line.to.y);
    }
    if let Some(p) = pb.finish() {
        let stroke = Stroke {
            width: (2.0 / scale).max(0.01),
            ..Stroke::default()
        };
        pixmap.stroke_path(&p, &paint(7), &stroke, transform, None);
    }
    for line in lines {
        let mid = (line.from + line.to) * 0.5;
        let t = transform;
        let pixel = Vec2::new(
            t.sx * mid.x + t.kx * mid.y + t.tx,
            t.ky * mid.x + t.sy * mid.y + t.ty,
        );
        draw_text(pixmap, &line.name, pixel + Vec2::new(4.0, -12.0));
    }
}

/// Pixels per dot of the label font.
const DOT: f32 = 2.0;

/// Writes `text` in capitals with a 3 × 5 dot font, its top left corner at `at`
/// (pixels), moved inside the image when it would leave it.
fn draw_text(pixmap: &mut Pixmap, text: &str, at: Vec2) {
    let glyphs: Vec<[u8; 5]> = text.chars().map(glyph).collect();
    let width = glyphs.len() as f32 * 4.0 * DOT;
    let x0 = at.x.min(pixmap.width() as f32 - width).max(0.0).round();
    let y0 =
        at.y.min(pixmap.height() as f32 - 5.0 * DOT)
            .max(0.0)
            .round();
    let mut pb = PathBuilder::new();
    for (k, rows) in glyphs.iter().enumerate() {
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..3 {
                if bits & (0b100 >> col) != 0 {
                    let x = x0 + (k as f32 * 4.0 + col as f32) * DOT;
                    let y = y0 + row as f32 * DOT;
                    if let Some(r) = Rect::from_xywh(x, y, DOT, DOT) {
                        pb.push_rect(r);
                    }
                }
            }
        }
    }
    if let Some(p) = pb.finish() {
        pixmap.fill_path(
            &p,
            &paint(7),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

/// A character's 3 × 5 dots, one byte a row, the left dot the `0b100` bit; letters
/// in capitals, anything unknown as `?`.
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_uppercase() {
        'A' => [0b010, 0b101, 0b111, 0b101, 0b101],
        'B' => [0b110, 0b101, 0b110, 0b101, 0b110],
        'C' => [0b011, 0b100, 0b100, 0b100, 0b011],
        'D' => [0b110, 0b101, 0b101, 0b101, 0b110],
        'E' => [0b111, 0b100, 0b110, 0b100, 0b111],
        'F' => [0b111, 0b100, 0b110, 0b100, 0b100],
        'G' => [0b011, 0b100, 0b101, 0b101, 0b011],
        'H' => [0b101, 0b101, 0b111, 0b101, 0b101],
        'I' => [0b111, 0b010, 0b010, 0b010, 0b111],
        'J' => [0b001, 0b001, 0b001, 0b101, 0b010],
        'K' => [0b101, 0b101, 0b110, 0b101, 0b101],
        'L' => [0b100, 0b100, 0b100, 0b100, 0b111],
        'M' => [0b101, 0b111, 0b111, 0b101, 0b101],
        'N' => [0b110, 0b101, 0b101, 0b101, 0b101],
        'O' => [0b010, 0b101, 0b101, 0b101, 0b010],
        'P' => [0b110, 0b101, 0b110, 0b100, 0b100],
        'Q' => [0b010, 0b101, 0b101, 0b110, 0b011],
        'R' => [0b110, 0b101, 0b110, 0b101, 0b101],
        'S' => [0b011, 0b100, 0b010, 0b001, 0b110],
        'T' => [0b111, 0b010, 0b010, 0b010, 0b010],
        'U' => [0b101, 0b101, 0b101, 0b101, 0b111],
        'V' => [0b101, 0b101, 0b101, 0b101, 0b010],
        'W' => [0b101, 0b101, 0b111, 0b111, 0b101],
        'X' => [0b101, 0b101, 0b010, 0b101, 0b101],
        'Y' => [0b101, 0b101, 0b010, 0b010, 0b010],
        'Z' => [0b111, 0b001, 0b010, 0b100, 0b111],
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b110, 0b001, 0b010, 0b100, 0b111],
        '3' => [0b110, 0b001, 0b010, 0b001, 0b110],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b110, 0b001, 0b110],
        '6' => [0b011, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b010, 0b010, 0b010],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b110],
        ' ' => [0; 5],
        '-' => [0, 0, 0b111, 0, 0],
        '_' => [0, 0, 0, 0, 0b111],
        '.' => [0, 0, 0, 0, 0b010],
        ':' => [0, 0b010, 0, 0b010, 0],
        '/' => [0b001, 0b001, 0b010, 0b100, 0b100],
        '(' => [0b001, 0b010, 0b010, 0b010, 0b001],
        ')' => [0b100, 0b010, 0b010, 0b010, 0b100],
        _ => [0b110, 0b001, 0b010, 0, 0b010],
    }
}

/// The palette entry of an exact palette colour (anything else: the nearest).
fn palette_index(rgb: [u8; 3]) -> u8 {
    if let Some(i) = PALETTE.iter().position(|c| *c == rgb) {
        return i as u8;
    }
    let dist = |c: &[u8; 3]| -> i32 {
        (0..3)
            .map(|k| (i32::from(c[k]) - i32::from(rgb[k])).pow(2))
            .sum()
    };
    PALETTE
        .iter()
        .enumerate()
        .min_by_key(|(_, c)| dist(c))
        .map_or(0, |(i, _)| i as u8)
}
