//! Walls → a planar straight-line graph: `f32` points and segments that meet only at
//! shared end points, ready for the constrained triangulation.
//!
//! Walls may cross, overlap and touch. spade can split crossing constraints itself, but
//! it computes the crossing points in `f64` and they are rounded again to `f32` when the
//! mesh is stored, which leaves clockwise or collinear triangles (and, on nearly
//! coincident points, panics inside spade). So the crossings are resolved here, before
//! spade sees anything:
//!
//! 1. every coordinate is snapped to a grid of [`SNAP_BITS`] below the level's extent
//!    (a no-op for ordinary coordinates; it merges points like `1e-30` and `0` that no
//!    predicate should have to tell apart);
//! 2. every pair of segments is classified with exact orientation tests: an end point
//!    lying inside another segment splits it there (exactly, no rounding); a proper
//!    crossing is computed in `f64`, rounded to `f32` and snapped, and both segments
//!    are split at that point;
//! 3. rounding moves a crossing point by up to half an `f32` step, so the new pieces
//!    may cross something else: step 2 repeats on the new pieces until nothing crosses.
//!
//! The result has only `f32` points, so the triangulation (exact predicates on those
//! very points) is exactly what the mesh stores: every triangle is counter-clockwise.
//! Rounding moves a wall by at most a few `f32` steps, which changes the walkable area
//! by far less than its `f32` precision.

use super::level::SegmentGrid;
use super::BuildError;
use crate::geom::{orient2d_value, Segment};
use glam::Vec2;
use std::collections::HashMap;

/// Coordinates are snapped to multiples of `2^(floor(log2(extent)) - SNAP_BITS)`,
/// `extent` being the largest coordinate magnitude of the level. An `f32` keeps 24 bits,
/// so only coordinates more than `2^(SNAP_BITS - 24)` times smaller than the extent move
/// (by less than `2^-SNAP_BITS` of it).
pub(crate) const SNAP_BITS: i32 = 40;

/// The snap grid never goes below `2^-100` (about `7.9e-31`): smaller magnitudes are
/// flushed to zero, as spade's predicates cannot represent them.
const MIN_SNAP_EXPONENT: i32 = -100;

/// Rounds of splitting before giving up with [`BuildError::Degenerate`]; crossings
/// settle in one or two rounds, three or four when many walls cross near one point.
const MAX_ROUNDS: usize = 32;

/// The snap grid of a level: a power of two, in metres.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SnapGrid {
    step: f64,
}

impl SnapGrid {
    /// The grid for segments whose largest coordinate magnitude is `extent`.
    pub(crate) fn for_extent(extent: f32) -> SnapGrid {
        let exponent = if extent > 0.0 {
            f64::from(extent).log2().floor() as i32 - SNAP_BITS
        } else {
            MIN_SNAP_EXPONENT
        };
        SnapGrid {
            step: 2f64.powi(exponent.max(MIN_SNAP_EXPONENT)),
        }
    }

    /// `v` rounded to the grid (to nearest; `-0.0` becomes `0.0`).
    fn coordinate(self, v: f64) -> f32 {
        // Round to f32 first: the grid is coarser than an f32 step only for small
        // magnitudes, where the second rounding is exact.
        let r = f64::from(v as f32);
        (((r / self.step).round() * self.step) as f32) + 0.0
    }

    /// `p` rounded to the grid.
    pub(crate) fn point(self, p: Vec2) -> Vec2 {
        Vec2::new(
            self.coordinate(f64::from(p.x)),
            self.coordinate(f64::from(p.y)),
        )
    }
}

/// Points and undirected edges (`[low index, high index]`, sorted, unique) that meet
/// only at shared end points.
pub(crate) struct Planar {
    pub(crate) points: Vec<Vec2>,
    pub(crate) edges: Vec<[usize; 2]>,
    /// An upper bound of the area between the walls as given and the split walls
    /// (rounding moves each crossing point off the walls that cross there), in m².
    pub(crate) drift: f64,
    /// The split point that contributes most to `drift` (the origin when none).
    pub(crate) worst: Vec2,
}

/// Splits `segments` (with grid-snapped ends) until no two cross, overlap or touch
/// except at shared end points.
///
/// # Errors
/// [`BuildError::Degenerate`] when the crossings do not settle in [`MAX_ROUNDS`] rounds.
pub(crate) fn planarize(segments: &[Segment], grid: SnapGrid) -> Result<Planar, BuildError> {
    let mut points = Points::default();
    let mut edges: Vec<[usize; 2]> = segments
        .iter()
        .map(|s| {
            let (a, b) = (points.id(s.a), points.id(s.b));
            if a < b {
                [a, b]
            } else {
                [b, a]
            }
        })
        .filter(|[a, b]| a != b)
        .collect();
    edges.sort_unstable();
    edges.dedup();
    let mut fresh = vec![true; edges.len()];
    let mut drift = Drift::default();
    for _ in 0..MAX_ROUNDS {
        let splits = find_splits(&mut points, &edges, &fresh, grid);
        if splits.is_empty() {
            return Ok(Planar {
                points: points.list,
                edges,
                drift: drift.total,
                worst: drift.worst.1,
            });
        }
        (edges, fresh) = apply_splits(&points.list, &edges, splits, &mut drift);
    }
    let p = edges
        .iter()
        .zip(&fresh)
        .find(|(_, &f)| f)
        .map_or(Vec2::ZERO, |(e, _)| points.list[e[0]]);
    Err(BuildError::Degenerate { x: p.x, y: p.y })
}

/// Sum of the areas between split edges and their chains, and the largest one.
#[derive(Default)]
struct Drift {
    total: f64,
    worst: (f64, Vec2),
}

impl Drift {
    fn add(&mut self, area: f64, at: Vec2) {
        self.total += area;
        if area > self.worst.0 {
            self.worst = (area, at);
        }
    }
}

/// Point list with an exact (bit-pattern) index.
#[derive(Default)]
struct Points {
    list: Vec<Vec2>,
    index: HashMap<(u32, u32), usize>,
}

impl Points {
    fn id(&mut self, p: Vec2) -> usize {
        let list = &mut self.list;
        *self
            .index
            .entry((p.x.to_bits(), p.y.to_bits()))
            .or_insert_with(|| {
                list.push(p);
                list.len() - 1
            })
    }
}

/// `(edge, point)` pairs: edge `edge` must pass through point `point`.
fn find_splits(
    points: &mut Points,
    edges: &[[usize; 2]],
    fresh: &[bool],
    grid: SnapGrid,
) -> Vec<(usize, usize)> {
    let index = SegmentGrid::new(
        edges
            .iter()
            .map(|&[a, b]| Segment::new(points.list[a], points.list[b]))
            .collect(),
    );
    let mut splits = Vec::new();
    let mut crossings: Vec<(usize, usize, Vec2)> = Vec::new();
    index.for_each_candidate_pair(|i, j| {
        if !fresh[i] && !fresh[j] {
            return;
        }
        let [a, b] = edges[i].map(|v| points.list[v]);
        let [c, d] = edges[j].map(|v| points.list[v]);
        if a.max(b).cmplt(c.min(d)).any() || c.max(d).cmplt(a.min(b)).any() {
            return;
        }
        let o_abc = orient2d_value(a, b, c);
        let o_abd = orient2d_value(a, b, d);
        let o_cda = orient2d_value(c, d, a);
        let o_cdb = orient2d_value(c, d, b);
        let mut touched = false;
        for (o, p, v, e) in [
            (o_abc, c, edges[j][0], i),
            (o_abd, d, edges[j][1], i),
            (o_cda, a, edges[i][0], j),
            (o_cdb, b, edges[i][1], j),
        ] {
            let [s, t] = edges[e].map(|k| points.list[k]);
            if o == 0.0 && p != s && p != t && inside_box(p, s, t) {
                splits.push((e, v));
                touched = true;
            }
        }
        let opposite = |x: f64, y: f64| (x > 0.0 && y < 0.0) || (x < 0.0 && y > 0.0);
        if !touched && opposite(o_abc, o_abd) && opposite(o_cda, o_cdb) {
            // Proper crossing: a + t (b - a) with t = o_cda / (o_cda - o_cdb).
            let t = o_cda / (o_cda - o_cdb);
            let (a64, b64) = (a.as_dvec2(), b.as_dvec2());
            let x = a64 + (b64 - a64) * t;
            let p = Vec2::new(grid.coordinate(x.x), grid.coordinate(x.y));
            crossings.push((i, j, p));
        }
    });
    for (i, j, p) in crossings {
        let v = points.id(p);
        for e in [i, j] {
            if !edges[e].contains(&v) {
                splits.push((e, v));
            }
        }
    }
    splits.sort_unstable();
    splits.dedup();
    splits
}

/// `true` when `p` lies in the closed bounding box of `s` and `t`.
fn inside_box(p: Vec2, s: Vec2, t: Vec2) -> bool {
    p.cmpge(s.min(t)).all() && p.cmple(s.max(t)).all()
}

/// Replaces every split edge by the chain through its split points (ordered along the
/// edge); returns the new edge list and which edges are new. Adds to `drift` a bound of
/// the area between each split edge and its chain.
fn apply_splits(
    points: &[Vec2],
    edges: &[[usize; 2]],
    splits: Vec<(usize, usize)>,
    drift: &mut Drift,
) -> (Vec<[usize; 2]>, Vec<bool>) {
    let mut out: Vec<([usize; 2], bool)> = Vec::with_capacity(edges.len() + 2 * splits.len());
    let mut k = 0;
    let mut chain: Vec<(f64, usize)> = Vec::new();
    for (e, &[a, b]) in edges.iter().enumerate() {
        if k >= splits.len() || splits[k].0 != e {
            out.push(([a, b], false));
            continue;
        }
        let (pa, pb) = (points[a].as_dvec2(), points[b].as_dvec2());
        let dir = pb - pa;
        chain.clear();
        while k < splits.len() && splits[k].0 == e {
            let v = splits[k].1;
            chain.push(((points[v].as_dvec2() - pa).dot(dir), v));
            k += 1;
        }
        chain.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        // The area between the chain and the edge: trapezoids between consecutive
        // chain points, from their signed distances to the edge's line.
        let len = dir.length();
        let offset = |v: usize| orient2d_value(points[a], points[b], points[v]).abs() / len;
        let (mut prev, mut prev_at, mut prev_offset) = (a, 0.0, 0.0);
        for &(along, v) in chain.iter().chain(std::iter::once(&(dir.dot(dir), b))) {
            if v != prev {
                let (at, h) = (along / len, offset(v));
                drift.add((at - prev_at).abs() * 0.5 * (prev_offset + h), points[v]);
                (prev_at, prev_offset) = (at, h);
                out.push(([prev.min(v), prev.max(v)], true));
                prev = v;
            }
        }
    }
    // Sort by edge, new pieces after the old copy, so a piece that already existed is
    // not counted as new.
    out.sort_unstable();
    out.dedup_by(|next, kept| next.0 == kept.0);
    out.into_iter().unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(ax: f32, ay: f32, bx: f32, by: f32) -> Segment {
        Segment::new(Vec2::new(ax, ay), Vec2::new(bx, by))
    }

    fn assert_planar(p: &Planar) {
        for (i, &[a, b]) in p.edges.iter().enumerate() {
            for &[c, d] in &p.edges[i + 1..] {
                let (pa, pb, pc, pd) = (p.points[a], p.points[b], p.points[c], p.points[d]);
                let o = |x, y, z| orient2d_value(x, y, z);
                let strict = |x: f64, y: f64| x * y < 0.0;
                assert!(
                    !(strict(o(pa, pb, pc), o(pa, pb, pd)) && strict(o(pc, pd, pa), o(pc, pd, pb))),
                    "{pa} {pb} crosses {pc} {pd}"
                );
                for (s, t, q) in [(pa, pb, pc), (pa, pb, pd), (pc, pd, pa), (pc, pd, pb)] {
                    assert!(
                        !(o(s, t, q) == 0.0 && q != s && q != t && inside_box(q, s, t)),
                        "{q} lies inside {s} {t}"
                    );
                }
            }
        }
    }

    #[test]
    fn crossing_segments_are_split_at_their_crossing() {
        let grid = SnapGrid::for_extent(4.0);
        let p =
            planarize(&[seg(0.0, 0.0, 4.0, 4.0), seg(0.0, 4.0, 4.0, 0.0)], grid).expect("planar");
        assert_eq!(p.edges.len(), 4);
        assert!(p.points.contains(&Vec2::new(2.0, 2.0)));
        assert_planar(&p);
    }

    #[test]
    fn overlapping_and_touching_segments_share_their_pieces() {
        let grid = SnapGrid::for_extent(10.0);
        let p = planarize(
            &[
                seg(0.0, 0.0, 6.0, 0.0),
                seg(10.0, 0.0, 3.0, 0.0),
                seg(5.0, 0.0, 5.0, 5.0),
            ],
            grid,
        )
        .expect("planar");
        // 0-3, 3-5, 5-6, 6-10 on the line, and the post.
        assert_eq!(p.edges.len(), 5);
        assert_planar(&p);
    }

    #[test]
    fn nearly_parallel_crossings_settle_to_a_planar_graph() {
        let grid = SnapGrid::for_extent(10.0);
        let mut segs = vec![
            seg(-1.899_081_6e-9, 0.0, 10.0, 10.0),
            seg(10.0, 10.0, 0.0, 0.0),
            seg(0.0, 0.0, 0.0, -4.0),
        ];
        for k in 0..12 {
            let y = 0.031_25 * k as f32;
            segs.push(seg(0.0, y, 4.0 + k as f32 * 0.5, 4.0 - y));
            segs.push(seg(0.1 * k as f32, 4.031_25, 4.0, 4.0 + y));
        }
        let p = planarize(&segs, grid).expect("planar");
        assert_planar(&p);
    }

    #[test]
    fn tiny_coordinates_snap_to_the_grid_of_the_extent() {
        let grid = SnapGrid::for_extent(364.0);
        assert_eq!(grid.point(Vec2::new(1.58e-30, -0.0)), Vec2::ZERO);
        assert_eq!(
            grid.point(Vec2::new(0.1, 297.156_25)),
            Vec2::new(0.1, 297.156_25)
        );
        let tiny = SnapGrid::for_extent(1e-35);
        assert_eq!(tiny.point(Vec2::new(1e-35, 0.0)), Vec2::ZERO);
    }
}
