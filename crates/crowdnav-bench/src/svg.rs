//! Small hand-written SVG plots: points or lines on log or linear axes.

use std::fmt::Write;

/// One data series.
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Stroke / fill colour (any SVG colour).
    pub color: &'static str,
    /// Points (x, y); non-finite or (on a log axis) non-positive ones are skipped.
    pub points: Vec<(f64, f64)>,
    /// Join the points with a line (else draw dots). A line of more than
    /// [`CURVE_POINTS`] points is a curve and gets no markers.
    pub line: bool,
}

/// Above this many points a line series is drawn as a bare curve.
pub const CURVE_POINTS: usize = 30;

/// A horizontal band of y values, shaded behind the data (a measured range).
pub struct Band {
    /// Legend text.
    pub name: String,
    /// Fill colour (any SVG colour).
    pub color: &'static str,
    /// Lower and upper y.
    pub y: (f64, f64),
}

/// A plot.
pub struct Plot {
    /// Title.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The series.
    pub series: Vec<Series>,
    /// Bands shaded behind the series (their y range widens the axis).
    pub bands: Vec<Band>,
}

const W: f64 = 720.0;
const H: f64 = 460.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

impl Plot {
    /// The plot as an SVG document.
    pub fn to_svg(&self) -> String {
        let tx = |v: f64| if self.log_x { v.log10() } else { v };
        let ty = |v: f64| if self.log_y { v.log10() } else { v };
        let ok = |&(x, y): &(f64, f64)| {
            x.is_finite() && y.is_finite() && (!self.log_x || x > 0.0) && (!self.log_y || y > 0.0)
        };
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied().filter(ok))
            .map(|(x, y)| (tx(x), ty(y)))
            .collect();
        let band_ys: Vec<f64> = self
            .bands
            .iter()
            .flat_map(|b| [b.y.0, b.y.1])
            .filter(|&y| y.is_finite() && (!self.log_y || y > 0.0))
            .map(ty)
            .collect();
        let range = |vals: &mut dyn Iterator<Item = f64>, log: bool| {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for v in vals {
                lo = lo.min(v);
                hi = hi.max(v);
            }
            if !lo.is_finite() {
                return (0.0, 1.0);
            }
            if log {
                (lo.floor(), hi.ceil().max(lo.floor() + 1.0))
            } else {
                let pad = ((hi - lo) * 0.05).max(1e-9);
                // Data that starts at or above zero keeps its axis there.
                let start = if lo >= 0.0 {
                    (lo - pad).max(0.0)
                } else {
                    lo - pad
                };
                (start, hi + pad)
            }
        };
        let (x0, x1) = range(&mut pts.iter().map(|p| p.0), self.log_x);
        let (y0, y1) = range(
            &mut pts.iter().map(|p| p.1).chain(band_ys.iter().copied()),
            self.log_y,
        );
        let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
        let py = |y: f64| H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
            W / 2.0,
            escape(&self.title)
        );
        for band in &self.bands {
            let (lo, hi) = (band.y.0.min(band.y.1), band.y.0.max(band.y.1));
            if !(lo.is_finite() && hi.is_finite()) || (self.log_y && lo <= 0.0) {
                continue;
            }
            let (top, bottom) = (py(ty(hi)), py(ty(lo)));
            let _ = writeln!(
                s,
                r#"<rect x="{LEFT}" y="{top:.1}" width="{}" height="{:.1}" fill="{}" fill-opacity="0.25"/>"#,
                W - LEFT - RIGHT,
                bottom - top,
                band.color
            );
        }
        // Axes, ticks and grid.
        for (i, v) in ticks(x0, x1, self.log_x).into_iter().enumerate() {
            let x = px(v);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
                H - BOTTOM,
                H - BOTTOM + 16.0,
                label(v, self.log_x, i)
            );
        }
        for (i, v) in ticks(y0, y1, self.log_y).into_iter().enumerate() {
            let y = py(v);
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
                W - RIGHT,
                LEFT - 6.0,
                y + 4.0,
                label(v, self.log_y, i)
            );
        }
        let _ = writeln!(
            s,
            r#"<rect x="{LEFT}" y="{TOP}" width="{}" height="{}" fill="none" stroke="black"/>"#,
            W - LEFT - RIGHT,
            H - TOP - BOTTOM
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            (LEFT + W - RIGHT) / 2.0,
            H - 18.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text x="18" y="{}" text-anchor="middle" transform="rotate(-90 18 {})">{}</text>"#,
            (TOP + H - BOTTOM) / 2.0,
            (TOP + H - BOTTOM) / 2.0,
            escape(&self.y_label)
        );
        for (k, series) in self.series.iter().enumerate() {
            let mapped: Vec<(f64, f64)> = series
                .points
                .iter()
                .copied()
                .filter(ok)
                .map(|(x, y)| (px(tx(x)), py(ty(y))))
                .collect();
            if series.line {
                let d: Vec<String> = mapped
                    .iter()
                    .map(|(x, y)| format!("{x:.1},{y:.1}"))
                    .collect();
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
                    d.join(" "),
                    series.color
                );
                if mapped.len() <= CURVE_POINTS {
                    for (x, y) in &mapped {
                        let _ = writeln!(
                            s,
                            r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{}"/>"#,
                            series.color
                        );
                    }
                }
            } else {
                for (x, y) in &mapped {
                    let _ = writeln!(
                        s,
                        r#"<circle cx="{x:.1}" cy="{y:.1}" r="1.6" fill="{}" fill-opacity="0.5"/>"#,
                        series.color
                    );
                }
            }
            let ly = TOP + 16.0 + 16.0 * k as f64;
            let _ = writeln!(
                s,
                r#"<rect x="{}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{}</text>"#,
                LEFT + 10.0,
                ly - 9.0,
                series.color,
                LEFT + 26.0,
                ly,
                escape(&series.name)
            );
        }
        for (k, band) in self.bands.iter().enumerate() {
            let ly = TOP + 16.0 + 16.0 * (self.series.len() + k) as f64;
            let _ = writeln!(
                s,
                r#"<rect x="{}" y="{}" width="10" height="10" fill="{}" fill-opacity="0.25" stroke="{}"/><text x="{}" y="{}">{}</text>"#,
                LEFT + 10.0,
                ly - 9.0,
                band.color,
                band.color,
                LEFT + 26.0,
                ly,
                escape(&band.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// One panel of a [`TrackPicture`]: a floor and paths drawn on it to scale.
pub struct TrackPanel {
    /// Text above the panel.
    pub label: String,
    /// Outlines (the boundary, the obstacles), drawn in grey.
    pub outlines: Vec<Vec<(f64, f64)>>,
    /// Paths and their colours.
    pub paths: Vec<(&'static str, Vec<(f64, f64)>)>,
    /// Discs (colour, centre, radius in world units), drawn over the paths.
    pub discs: Vec<(&'static str, (f64, f64), f64)>,
}

/// Trajectories seen from above: panels stacked vertically, each to the same scale,
/// the y axis pointing up.
pub struct TrackPicture {
    /// Title.
    pub title: String,
    /// A line under the title (what the colours mean).
    pub legend: String,
    /// The area each panel shows: `(min, max)` corners.
    pub window: ((f64, f64), (f64, f64)),
    /// The panels.
    pub panels: Vec<TrackPanel>,
}

impl TrackPicture {
    /// The picture as an SVG document, `width` pixels wide.
    pub fn to_svg(&self, width: f64) -> String {
        let ((x0, y0), (x1, y1)) = self.window;
        let (span_x, span_y) = ((x1 - x0).max(1e-9), (y1 - y0).max(1e-9));
        let margin = 20.0;
        let scale = (width - 2.0 * margin) / span_x;
        let panel_h = span_y * scale;
        let (head, label_h, gap) = (52.0, 18.0, 14.0);
        let height = head + self.panels.len() as f64 * (label_h + panel_h + gap);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(
            s,
            r#"<rect width="{width:.0}" height="{height:.0}" fill="white"/>"#
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="20" text-anchor="middle" font-size="15">{}</text><text x="{:.1}" y="38" text-anchor="middle">{}</text>"#,
            width / 2.0,
            escape(&self.title),
            width / 2.0,
            escape(&self.legend)
        );
        for (k, panel) in self.panels.iter().enumerate() {
            let top = head + k as f64 * (label_h + panel_h + gap);
            let _ = writeln!(
                s,
                r#"<text x="{margin}" y="{:.1}">{}</text>"#,
                top + 13.0,
                escape(&panel.label)
            );
            let oy = top + label_h;
            let map =
                |&(x, y): &(f64, f64)| (margin + (x - x0) * scale, oy + panel_h - (y - y0) * scale);
            let poly = |pts: &[(f64, f64)]| {
                pts.iter()
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .map(|p| {
                        let (x, y) = map(p);
                        format!("{x:.1},{y:.1}")
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            for (color, path) in &panel.paths {
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.2" stroke-opacity="0.6"/>"#,
                    poly(path)
                );
            }
            for (color, centre, radius) in &panel.discs {
                let (x, y) = map(centre);
                let _ = writeln!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="{color}" fill-opacity="0.8"/>"#,
                    radius * scale
                );
            }
            for outline in &panel.outlines {
                let _ = writeln!(
                    s,
                    r##"<polygon points="{}" fill="none" stroke="#555" stroke-width="1.5"/>"##,
                    poly(outline)
                );
            }
        }
        s.push_str("</svg>\n");
        s
    }
}

/// Tick positions (in axis units: log10 for log axes).
fn ticks(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    if log {
        let (a, b) = (lo.floor() as i32, hi.ceil() as i32);
        return (a..=b).map(f64::from).collect();
    }
    let span = (hi - lo).max(1e-12);
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 7.0)
        .unwrap_or(10.0 * mag);
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi + 1e-9 && out.len() < 20 {
        out.push(v);
        v += step;
    }
    out
}

fn label(v: f64, log: bool, _i: usize) -> String {
    // `+ 0.0` turns a negative zero into zero.
    let x = if log { 10f64.powf(v) } else { v } + 0.0;
    if x.abs() >= 1e4 || (x != 0.0 && x.abs() < 1e-2) {
        format!("{x:.0e}")
    } else if x.fract().abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
