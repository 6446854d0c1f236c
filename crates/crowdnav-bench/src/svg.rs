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
    /// Join the points with a line (else draw dots).
    pub line: bool,
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
        let (y0, y1) = range(&mut pts.iter().map(|p| p.1), self.log_y);
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
                for (x, y) in &mapped {
                    let _ = writeln!(
                        s,
                        r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{}"/>"#,
                        series.color
                    );
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
